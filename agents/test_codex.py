"""Real Codex against a local model, each scenario natively (the hook in
Codex's own `hooks.json`) and under hookshot (the same hook in hookshot's
settings, hookshot registered with `hookshot install --agent codex`),
asserted side by side. Codex keeps the hooks it has in place on `--import`
(its approvals are bound to their places), so the hookshot half puts the
hook in hookshot's own file."""

import json
import os
import time
import unittest

import harness

HOOKSHOT = os.environ.get("HOOKSHOT_BIN", "")

WRITE = {"tool": "exec_command", "input": {"cmd": "echo hi > out.txt"}}
DONE = {"text": "done"}


def hook(command, matcher="Bash", event="PreToolUse", **extra):
    group = {"hooks": [dict({"type": "command", "command": command}, **extra)]}
    if matcher:
        group["matcher"] = matcher
    return {"hooks": {event: [group]}}


def hooks(*files):
    """One settings value holding the events of several `hook(...)`."""
    out = {"hooks": {}}
    for f in files:
        out["hooks"].update(f["hooks"])
    return out


def warnings(run):
    """What Codex warned the user of (`error` items of `codex exec --json`),
    but for the warning the test harness itself causes."""
    return [e["item"]["message"] for e in run.events
            if e.get("type") == "item.completed" and e["item"].get("type") == "error"
            and "dangerously-bypass-hook-trust" not in e["item"]["message"]]


class Scenario(unittest.TestCase):
    """Helpers: a place per run, the hook natively or under hookshot."""

    def place(self, hooks, under_hookshot, hookshot_extra=None):
        place = harness.Place()
        self.addCleanup(place.remove)
        if under_hookshot:
            place.write("home/.config/hookshot/settings.json", dict(hooks, **(hookshot_extra or {})))
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
                # What hookshot registers, Codex takes as it is: no warning
                # in front of the user on every session.
                self.assertEqual(warnings(run), [])
                check(place, run)


class Codex(Scenario):
    def test_a_block_by_exit_code_2(self):
        def check(place, run):
            self.assertFalse(place.exists("project/out.txt"))
            self.assertIn("no shell today", run.shown_to_model())

        self.both(check, hook("echo 'no shell today' >&2; exit 2"), [WRITE, DONE])

    def test_a_block_by_json(self):
        deny = harness.deny_json("json says no")

        def check(place, run):
            harness.blocked_with(self, place, run, "json says no")

        self.both(check, hook(f"echo '{json.dumps(deny)}'"), [WRITE, DONE])

    def test_a_hook_that_crashes_or_times_out_does_not_block(self):
        def check(place, run):
            self.assertTrue(place.exists("project/out.txt"), run.stdout[-2000:])

        crash_and_timeout = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "echo broken >&2; exit 1"},
            {"type": "command", "command": "sleep 5", "timeout": 1}]}]}}
        self.both(check, crash_and_timeout, [WRITE, DONE])

    def test_context_at_session_start_and_on_the_prompt(self):
        start = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "codename kiwi"}}

        def check(place, run):
            first = run.first_request()
            self.assertIn("codename kiwi", first)
            self.assertIn("prompt context pear", first)

        self.both(check, hooks(hook(f"echo '{json.dumps(start)}'", matcher=None, event="SessionStart"),
                               hook("echo 'prompt context pear'", matcher=None, event="UserPromptSubmit")), [DONE])

    def test_each_hooks_context_is_cut_to_its_own_limit(self):
        """Codex cuts each hook's context to its additionalContextLimit
        (2,500 tokens by default) and saves it whole to a file: two hooks
        of 2,000 tokens each reach the model whole, a third with a limit of
        100 is cut in the middle. Under hookshot (one Codex hook running
        three) the same, not their sum cut to one hook's limit."""
        def context(word, n):
            text = "".join(f"{word}{i:05d} " for i in range(n))
            answer = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": text}}
            return {"type": "command", "command": f"echo '{json.dumps(answer)}'"}

        def check(place, run):
            first = run.first_request()
            for seen in ("apple00000 ", "apple00799 ", "berry00000 ", "berry00799 ", "cherry00000 cherry00001",
                         "tokens truncated"):
                self.assertTrue(seen in first, f"{seen!r} is not in the first request")
            self.assertFalse("cherry03000" in first, "the limited hook's context was not cut")
            saved = first.split("Full hook output saved to: ")[1].split('"')[0]
            with open(saved) as f:
                self.assertIn("cherry03000", f.read())

        limited = dict(context("cherry", 6000), additionalContextLimit=100)
        self.both(check, {"hooks": {"UserPromptSubmit": [{"hooks": [
            context("apple", 800), context("berry", 800), limited]}]}}, [DONE])

    def test_a_stop_hook_makes_the_agent_go_on(self):
        def check(place, run):
            self.assertGreaterEqual(len(run.script.main_requests()), 2)
            self.assertIn("run the tests first", run.shown_to_model())

        self.both(check, hook(harness.STOP_ONCE, matcher=None, event="Stop"), [DONE, {"text": "tests run"}])

    def test_context_before_and_after_a_tool(self):
        before = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "before the write"}}
        after = {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "remember the tests"}}

        def check(place, run):
            self.assertTrue(place.exists("project/out.txt"))
            self.assertIn("before the write", run.shown_to_model())
            self.assertIn("remember the tests", run.shown_to_model())

        self.both(check, hooks(hook(f"echo '{json.dumps(before)}'"),
                               hook(f"echo '{json.dumps(after)}'", event="PostToolUse")), [WRITE, DONE])


    def test_a_rewrite_of_the_tool_input(self):
        allow = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                        "updatedInput": {"command": "echo rewritten > rewritten.txt"}}}

        def check(place, run):
            self.assertFalse(place.exists("project/out.txt"))
            self.assertTrue(place.exists("project/rewritten.txt"), run.stdout[-2000:])

        self.both(check, hook(f"echo '{json.dumps(allow)}'"), [WRITE, DONE])

    def test_apply_patch_is_matched_as_write_and_edit(self):
        """Codex runs `Write|Edit` hooks for its apply_patch tool (its
        matcher aliases), with `tool_name: apply_patch`."""
        patch = "*** Begin Patch\n*** Add File: p.txt\n+hi\n*** End Patch\n"

        def check(place, run):
            self.assertFalse(place.exists("project/p.txt"))
            self.assertIn("no edits today", run.shown_to_model())
            self.assertIn('"tool_name":"apply_patch"', place.read("home/input"))

        self.both(check, hook("cat > \"$HOME/input\"; echo 'no edits today' >&2; exit 2", matcher="Write|Edit"),
                  [{"tool": "apply_patch", "freeform": patch}, DONE])

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
            # Codex picks the shell from /etc/passwd, not $SHELL, and not
            # as a login shell: neither the dash named here nor the
            # profiles' variable reach its hooks.
            for profile in (".profile", ".bash_profile", ".bash_login"):
                place.write(f"home/{profile}", "export LOGIN_PROFILE_READ=1\n")
            run = harness.run_codex(place, [WRITE, DONE], extra_env={"SHELL": "/bin/dash"})
            self.assertEqual(run.rc, 0, run.stderr[-2000:])
            seen[under] = {k: place.read(f"home/{k}") for k in ("env", "input", "shell")}
        for key, native in seen[False].items():
            self.assertEqual(seen[True][key], native, key)


    def test_model_request_hooks_run_with_codexs_input_and_block_nothing(self):
        """Codex 0.171's PreModelRequest and PostModelRequest: each model
        request's ids (no messages), and no answer applied, an exit 2
        included. Under hookshot: the same input, and the session goes on."""
        def dump(name):
            return ("python3 -c 'import json,sys; print(sorted(json.load(sys.stdin)))' "
                    f">> \"$HOME/{name}\"; echo 'no model today' >&2; exit 2")

        seen = {}
        for under in (False, True):
            place = self.place(hooks(hook(dump("pre"), matcher=None, event="PreModelRequest"),
                                     hook(dump("post"), matcher=None, event="PostModelRequest")), under)
            run = harness.run_codex(place, [WRITE, DONE])
            self.assertEqual(run.rc, 0, run.stderr[-2000:])
            self.assertTrue(place.exists("project/out.txt"), run.stdout[-2000:])
            self.assertEqual(len(run.script.main_requests()), 2)
            seen[under] = {k: place.read(f"home/{k}").splitlines() for k in ("pre", "post")}
            self.assertEqual(len(seen[under]["pre"]), 2, seen[under])
            self.assertIn("'request_id'", seen[under]["pre"][0])
            self.assertIn("'token_usage'", seen[under]["post"][0])
        self.assertEqual(seen[True], seen[False])


class UnderHookshotOnly(Scenario):
    """What only hookshot does, with the native behaviour it replaces."""

    def test_the_closed_policy_blocks_a_hook_that_crashes_or_times_out(self):
        for name, command, extra in (("crashes", "exit 1", {}), ("times out", "sleep 5", {"timeout": 1})):
            with self.subTest(hook=name):
                place = self.place(hook(command, **extra), True, {"hooksConfig": {"onFailure": "closed"}})
                run = harness.run_codex(place, [WRITE, DONE])
                self.assertFalse(place.exists("project/out.txt"))
                self.assertIn("fail-closed", run.shown_to_model())

    def test_built_ins_refuse_a_force_push(self):
        place = self.place({}, True, {"builtins": {"dangerous_confirmation": {"mode": "deny"}}})
        push = {"tool": "exec_command", "input": {"cmd": "git push --force origin main"}}
        run = harness.run_codex(place, [push, DONE])
        self.assertIn("rewrites the remote", run.shown_to_model())
        self.assertIn("dangerous_confirmation", run.shown_to_model())

    def test_doctor_says_what_codex_has_not_approved_and_codex_runs_only_what_it_approved(self):
        """Codex runs a hooks.json entry only once approved in /hooks: the
        install says so, doctor asks Codex and reports every entry not
        approved as a problem (and Codex indeed lets the force push through),
        and once approved doctor is content and the guard refuses."""
        place = self.place({}, True, {"builtins": {"dangerous_confirmation": {"mode": "deny"}}})
        said = place.hookshot(HOOKSHOT, "install", "--agent", "codex").stdout
        self.assertIn("/hooks", said)
        codex = {"HOOKSHOT_CODEX": harness.codex_binary()}
        doctor = place.hookshot(HOOKSHOT, "doctor", check=False, env=codex)
        self.assertEqual(doctor.returncode, 1, doctor.stdout)
        self.assertIn("does not run 14 of hookshot's 14 hooks until you approve them", doctor.stdout)
        self.assertIn("PreToolUse", doctor.stdout)
        push = {"tool": "exec_command", "input": {"cmd": "git push --force origin main 2>&1; echo pushed"}}
        run = harness.run_codex(place, [push, DONE], bypass_hook_trust=False)
        self.assertNotIn("dangerous_confirmation", run.shown_to_model())

        harness.codex_approve_all(place)
        run = harness.run_codex(place, [push, DONE], bypass_hook_trust=False)
        self.assertIn("dangerous_confirmation", run.shown_to_model())
        doctor = place.hookshot(HOOKSHOT, "doctor", check=False, env=codex)
        self.assertEqual(doctor.returncode, 0, doctor.stdout)
        self.assertIn("all 14 of hookshot's hooks approved in Codex", doctor.stdout)
        # Without a Codex to ask, its config file still tells approved from not.
        doctor = place.hookshot(HOOKSHOT, "doctor", check=False, env={"HOOKSHOT_CODEX": "/nonexistent"})
        self.assertEqual(doctor.returncode, 0, doctor.stdout)

    def test_import_moves_approved_hooks_under_hookshot_with_no_guard_off(self):
        """`install --import`: first hookshot's entries are added and the
        user's guard keeps running natively; once Codex approved hookshot's
        entries, a second import moves the guard under hookshot, carrying
        every approval to its new place (nothing to approve again); an
        uninstall gives the file and the approvals back."""
        guard = hook("echo 'no force push here' >&2; exit 2")
        place = harness.Place()
        self.addCleanup(place.remove)
        place.write("home/.codex/hooks.json", guard)
        original = place.read("home/.codex/hooks.json")
        harness.codex_approve_all(place)
        codex = {"HOOKSHOT_CODEX": harness.codex_binary()}
        push = {"tool": "exec_command", "input": {"cmd": "echo pushed > out.txt"}}

        def guarded(where):
            if place.exists("project/out.txt"):
                os.remove(os.path.join(place.project, "out.txt"))
            run = harness.run_codex(place, [push, DONE], bypass_hook_trust=False)
            self.assertFalse(place.exists("project/out.txt"), where)
            self.assertIn("no force push here", run.shown_to_model(), where)

        guarded("natively, before")
        first = place.hookshot(HOOKSHOT, "install", "--agent", "codex", "--import", check=False, env=codex)
        self.assertEqual(first.returncode, 1, first.stdout + first.stderr)
        self.assertIn("approve them, then run this install again", first.stderr)
        guarded("natively, while hookshot's entries wait for approval")

        harness.codex_approve_all(place)
        second = place.hookshot(HOOKSHOT, "install", "--agent", "codex", "--import", env=codex)
        self.assertIn("now run under hookshot", second.stdout)
        self.assertNotIn("no force push", place.read("home/.codex/hooks.json"))
        self.assertIn("no force push", place.read("home/.config/hookshot/imported/codex.json"))
        self.assertTrue(all(h["trustStatus"] == "trusted" for h in harness.codex_hooks_list(place)))
        guarded("under hookshot")

        place.hookshot(HOOKSHOT, "uninstall", "--agent", "codex", env=codex)
        self.assertEqual(place.read("home/.codex/hooks.json"), original)
        self.assertTrue(all(h["trustStatus"] == "trusted" for h in harness.codex_hooks_list(place)))
        guarded("natively, after uninstall")

    def test_a_secret_typed_into_the_prompt_never_reaches_the_model(self):
        place = self.place({}, True, {"builtins": {"security_scan": {"mode": "redact"}}})
        run = harness.run_codex(place, [DONE], prompt="deploy with key AKIAIOSFODNN7EXAMPLE please",
                                json_events=False)
        self.assertEqual(run.script.requests, [])
        self.assertIn("hook: UserPromptSubmit Blocked", run.stdout + run.stderr)

    def test_built_ins_redact_secrets_in_answers_codex_applies(self):
        """Codex takes a rewrite only with "allow", and no replacement of a
        tool's result but a PostToolUse block's reason (which replaces what
        its model sees): the secret neither runs nor reaches the model."""
        token = "ghp_" + "a" * 36
        place = self.place({}, True, {"builtins": {"security_scan": {"mode": "redact"}}})
        place.write("project/secret.txt", "line one\naws_key=AKIAIOSFODNN7EXAMPLE\n")
        run = harness.run_codex(place, [{"tool": "exec_command", "input": {"cmd": f"echo {token} > out.txt"}},
                                        {"tool": "exec_command", "input": {"cmd": "cat secret.txt"}}, DONE])
        self.assertEqual(run.rc, 0, run.stderr[-2000:])
        self.assertEqual(place.read("project/out.txt").strip(), "***REDACTED:github_token***")
        results = [i["output"] for r in run.script.main_requests() for i in r.get("input", [])
                   if i.get("type") == "function_call_output"]
        self.assertTrue(any("aws_key=***REDACTED:aws_access_key***" in o for o in results), results)
        self.assertNotIn("AKIAIOSFODNN7EXAMPLE", run.shown_to_model())

    def test_a_session_end_hook_ends_with_its_processes_before_codex_kills_hookshot(self):
        """Codex gives a SessionEnd hook at most 3 s, then kills the process
        it started with SIGKILL: natively the hook's shell, under hookshot
        hookshot itself, which cannot then end its hooks' process groups.
        hookshot gives them 2 s and ends them itself."""
        place = self.place({}, True)
        pid_file = os.path.join(place.root, "child.pid")
        slow = hook(f"sleep 100 & echo $! > {pid_file}; wait", matcher=None, event="SessionEnd", timeout=30)
        place.write("home/.config/hookshot/settings.json", slow)
        run = harness.run_codex(place, [DONE])
        self.assertEqual(run.rc, 0, run.stderr[-2000:])
        self.assertTrue(os.path.exists(pid_file), "Codex fired no SessionEnd")
        pid = int(open(pid_file).read().strip())
        deadline = time.time() + 2
        while time.time() < deadline and harness.alive(pid):
            time.sleep(0.05)
        alive = harness.alive(pid)
        if alive:
            os.kill(pid, 9)
        self.assertFalse(alive, "a SessionEnd hook's process outlived the session")

    def test_an_untrusted_project_hook_does_not_run_until_trusted(self):
        place = self.place({}, True)
        harness.untrusted_until_trusted(self, place, harness.run_codex, HOOKSHOT,
                                        hook("echo 'the project says no' >&2; exit 2"), [WRITE, DONE])

    def test_hookshot_removed_after_install_warns_or_under_the_closed_policy_blocks(self):
        """`codex exec` prints no hook warnings (its TUI does: a
        systemMessage is a warning entry there), so the open half asserts
        that Codex ran the registration and went on; the closed half that
        the first guard (the prompt's) refused."""
        for policy in ("open", "closed"):
            with self.subTest(policy=policy):
                place = harness.Place()
                self.addCleanup(place.remove)
                copy = place.copy_of(HOOKSHOT)
                place.write("home/.config/hookshot/settings.json",
                            dict(hook("exit 0"), hooksConfig={"onFailure": policy}))
                place.hookshot(copy, "install", "--agent", "codex")
                os.remove(copy)
                run = harness.run_codex(place, [WRITE, DONE], json_events=False)
                self.assertEqual(run.rc, 0, run.stderr[-2000:])
                if policy == "open":
                    self.assertTrue(place.exists("project/out.txt"))
                    self.assertIn("hook: PreToolUse Completed", run.stdout + run.stderr)
                else:
                    # The prompt itself is refused: the model is never asked.
                    self.assertFalse(place.exists("project/out.txt"))
                    self.assertEqual(run.script.requests, [])
                    self.assertIn("hook: UserPromptSubmit Blocked", run.stdout + run.stderr)

if __name__ == "__main__":
    unittest.main()
