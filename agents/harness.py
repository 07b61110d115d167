"""Runs real agents against local model servers, natively and under hookshot.

The agents' CLIs are installed, pinned, from npm into a cache folder outside
the clone (`$HOOKSHOT_AGENTS_CACHE`, default `~/.cache/hookshot-agents`), once.
With `HOOKSHOT_AGENTS=latest` each is instead the newest release on npm (as
`npm view` names it at the start of the run), so the same scenarios tell the
week an agent ships a change whether hookshot still agrees with it.
Each run gets a home and a project folder of its own, and a mock model server
that plays a script of turns and records what the agent sent it.
"""

import json
import os
import shutil
import subprocess
import tempfile
import time

import mock_models

PINNED = {
    "claude": ("@anthropic-ai/claude-code", "2.1.332"),
    "codex": ("@openai/codex", "0.171.0"),
    "gemini": ("@google/gemini-cli", "0.61.0"),
    "qwen": ("@qwen-code/qwen-code", "0.24.4"),
    "copilot": ("@github/copilot", "1.0.102"),
    "cline": ("cline", "3.0.65"),
}


def newest(package):
    """The newest version of `package` on npm, asked once an hour (each
    scenario is a process of its own; a run takes minutes)."""
    memo = os.path.join(CACHE, "latest.json")
    try:
        with open(memo) as f:
            known = json.load(f)
    except (OSError, ValueError):
        known = {}
    hit = known.get(package)
    if hit and time.time() - hit["at"] < 3600:
        return hit["version"]
    p = subprocess.run(["npm", "view", package, "version"], capture_output=True, text=True, timeout=120)
    if p.returncode != 0 or not p.stdout.strip():
        raise Unavailable(f"npm view {package} version failed:\n{p.stderr[-2000:]}")
    version = p.stdout.strip().splitlines()[-1]
    known[package] = {"version": version, "at": time.time()}
    os.makedirs(CACHE, exist_ok=True)
    tmp = f"{memo}.{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(known, f)
    os.replace(tmp, memo)
    return version


def agent(name):
    """(package, version) of an agent: pinned, or the newest with
    HOOKSHOT_AGENTS=latest."""
    package, pinned = PINNED[name]
    which = os.environ.get("HOOKSHOT_AGENTS", "pinned")
    if which == "latest":
        return package, newest(package)
    if which != "pinned":
        raise Unavailable(f"HOOKSHOT_AGENTS={which!r}: use 'pinned' (the default) or 'latest'")
    return package, pinned

CACHE = os.environ.get("HOOKSHOT_AGENTS_CACHE") or os.path.join(
    os.path.expanduser("~"), ".cache", "hookshot-agents")


class Unavailable(Exception):
    """An agent's CLI could not be installed (npm unreachable, say)."""


def install(package, version):
    """The folder of `package@version` installed under the cache (once, under
    a lock: tests run side by side)."""
    import fcntl

    prefix = os.path.join(CACHE, f"{package.replace('/', '+')}@{version}")
    done = os.path.join(prefix, ".installed")
    if os.path.exists(done):
        return prefix
    os.makedirs(prefix, exist_ok=True)
    with open(os.path.join(prefix, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(done):
            return prefix
        p = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", prefix, f"{package}@{version}"],
                           capture_output=True, text=True, timeout=900)
        if p.returncode != 0:
            raise Unavailable(f"npm install {package}@{version} failed:\n{p.stderr[-3000:]}")
        open(done, "w").close()
    return prefix


def claude_binary():
    """Claude Code's native binary (its npm package ships it in a platform
    package; the postinstall that links it may have been skipped)."""
    prefix = install(*agent("claude"))
    exe = os.path.join(prefix, "node_modules", "@anthropic-ai", "claude-code-linux-x64", "claude")
    if not os.access(exe, os.X_OK):
        raise Unavailable(f"no native Claude Code binary at {exe}")
    return exe


def codex_binary():
    """Codex's native binary, from its platform package."""
    prefix = install(*agent("codex"))
    exe = os.path.join(prefix, "node_modules", "@openai", "codex-linux-x64", "vendor", "x86_64-unknown-linux-musl",
                       "bin", "codex")
    if not os.access(exe, os.X_OK):
        raise Unavailable(f"no native Codex binary at {exe}")
    return exe


def copilot_binary():
    """GitHub Copilot CLI's native binary, from its platform package."""
    prefix = install(*agent("copilot"))
    exe = os.path.join(prefix, "node_modules", "@github", "copilot-linux-x64", "copilot")
    if not os.access(exe, os.X_OK):
        raise Unavailable(f"no native Copilot CLI binary at {exe}")
    return exe


def copilot_sdk_types():
    """The type declarations of GitHub Copilot CLI's SDK, which its package
    unpacks on first run (into the cache, beside the package)."""
    exe = copilot_binary()
    version = agent("copilot")[1]
    cache = os.path.join(CACHE, "copilot-pkg")
    path = os.path.join(cache, "pkg", "linux-x64", version, "copilot-sdk", "types.d.ts")
    if not os.path.exists(path):
        subprocess.run([exe, "--version"], env=dict(os.environ, COPILOT_SEA_EXTRACT_ONLY="1",
                                                    COPILOT_PKG_CACHE_HOME=cache),
                       capture_output=True, timeout=300, stdin=subprocess.DEVNULL)
    if not os.path.exists(path):
        raise Unavailable(f"Copilot CLI {version} did not unpack its SDK's types at {path}")
    return path


def alive(pid):
    """Whether process `pid` runs (a zombie does not count)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


class Place:
    """A home and a project, removed at the end."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="hookshot-agent-")
        self.home = os.path.join(self.root, "home")
        self.project = os.path.join(self.root, "project")
        os.makedirs(self.home)
        os.makedirs(self.project)

    def write(self, rel, text, mode=None):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text if isinstance(text, str) else json.dumps(text, indent=2))
        if mode:
            os.chmod(path, mode)
        return path

    def read(self, rel):
        with open(os.path.join(self.root, rel)) as f:
            return f.read()

    def exists(self, rel):
        return os.path.exists(os.path.join(self.root, rel))

    def env(self):
        return {
            "HOME": self.home,
            "XDG_CONFIG_HOME": os.path.join(self.home, ".config"),
            "XDG_STATE_HOME": os.path.join(self.home, ".local", "state"),
            "XDG_DATA_HOME": os.path.join(self.home, ".local", "share"),
            "XDG_RUNTIME_DIR": os.path.join(self.root, "run"),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
        }

    def hookshot(self, hookshot, *args, check=True, env=None):
        p = subprocess.run([hookshot, *args], cwd=self.project, env=dict(self.env(), **(env or {})),
                           capture_output=True, text=True, timeout=120)
        if check and p.returncode not in (0,):
            raise AssertionError(f"hookshot {' '.join(args)} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
        return p

    def copy_of(self, program):
        """A copy of `program` in this place's `bin/`, to remove later."""
        copy = os.path.join(self.root, "bin", os.path.basename(program))
        os.makedirs(os.path.dirname(copy), exist_ok=True)
        shutil.copy(program, copy)
        return copy

    def remove(self):
        shutil.rmtree(self.root, ignore_errors=True)


def deny_json(reason):
    """A PreToolUse hook's answer (Claude Code's shape, which Codex, Qwen
    Code and Copilot CLI read too) that denies the call with `reason`."""
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": reason}}


def blocked_with(test, place, run, reason):
    """The write did not happen, and the model was told `reason`."""
    test.assertFalse(place.exists("project/out.txt"))
    test.assertIn(reason, run.shown_to_model())


# A Stop hook (Claude Code's and Codex's format) that makes the agent go on
# once: the first time it blocks with a reason the model is shown.
STOP_ONCE = ("[ -e went-on ] && exit 0; touch went-on; "
             "echo '{\"decision\": \"block\", \"reason\": \"run the tests first\"}'")


def untrusted_until_trusted(test, place, run, hookshot, project_settings, turns):
    """A project hook that says no (`project_settings`, in the project's
    `.hookshot/`) does not run while the project is untrusted, and blocks
    the write once `hookshot trust` approved it."""
    place.write("project/.hookshot/settings.json", project_settings)
    first = run(place, turns)
    test.assertTrue(place.exists("project/out.txt"))
    test.assertNotIn("the project says no", first.shown_to_model())
    os.remove(os.path.join(place.root, "project/out.txt"))
    place.hookshot(hookshot, "trust", "--yes")
    second = run(place, turns)
    test.assertFalse(place.exists("project/out.txt"))
    test.assertIn("the project says no", second.shown_to_model())


class Run:
    """What one agent session did."""

    def __init__(self, proc, script, seconds):
        self.rc = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.script = script
        self.seconds = seconds
        self.events = []
        for line in proc.stdout.splitlines():
            try:
                self.events.append(json.loads(line))
            except ValueError:
                pass

    def shown_to_model(self):
        """Everything the model was sent after its first turn, as text."""
        return json.dumps(self.script.main_requests()[1:])

    def first_request(self):
        reqs = self.script.main_requests()
        return json.dumps(reqs[0]) if reqs else ""

    def result(self):
        for e in self.events:
            if e.get("type") == "result":
                return e
        return {}


def run_claude(place, turns, prompt="do the task", extra_env=None, timeout=120):
    """One headless Claude Code session in `place`, its model playing
    `turns`."""
    exe = claude_binary()
    script = mock_models.Script(turns)
    server, url = mock_models.serve(script, "anthropic")
    env = place.env()
    env.update({
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        # Root may use bypassPermissions only in a sandbox.
        "IS_SANDBOX": "1",
    })
    env.update(extra_env or {})
    start = time.time()
    try:
        proc = subprocess.run(
            [exe, "-p", prompt, "--output-format", "stream-json", "--verbose",
             "--permission-mode", "bypassPermissions", "--include-hook-events"],
            cwd=place.project, env=env, capture_output=True, text=True, timeout=timeout)
    finally:
        server.shutdown()
        server.server_close()
    return Run(proc, script, time.time() - start)


# The mock model as Codex's model catalogue describes one: without an
# entry Codex falls back to metadata that offers no apply_patch tool (and
# warns on every session). Fields of codex-rs/protocol's ModelInfo.
CODEX_MODELS = {"models": [{
    "slug": "gpt-mock", "display_name": "mock", "description": "a scripted model", "supported_reasoning_levels": [],
    "shell_type": "unified_exec", "visibility": "list", "supported_in_api": True, "priority": 1, "upgrade": None,
    "base_instructions": "You are a coding agent.", "supports_reasoning_summaries": False,
    "support_verbosity": False, "default_verbosity": None, "apply_patch_tool_type": "freeform",
    "truncation_policy": {"mode": "bytes", "limit": 10000}, "supports_parallel_tool_calls": False,
    "context_window": 200000, "experimental_supported_tools": []}]}


def codex_config(place):
    """Codex's config for `place`: its model, the mock."""
    codex_home = os.path.join(place.home, ".codex")
    os.makedirs(codex_home, exist_ok=True)
    catalog = place.write("codex-models.json", CODEX_MODELS)
    return codex_home, catalog


def codex_hooks_list(place):
    """What Codex's own `/hooks` screen lists for `place` (the app server's
    `hooks/list`): each hook's key, current hash and trust status."""
    codex_home, _ = codex_config(place)
    env = dict(place.env(), CODEX_HOME=codex_home)
    with subprocess.Popen([codex_binary(), "app-server"], cwd=place.project, env=env, stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) as p:
        try:
            for m in ({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": {"clientInfo": {"name": "test", "version": "1"}}},
                      {"jsonrpc": "2.0", "method": "initialized"},
                      {"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [place.project]}}):
                p.stdin.write(json.dumps(m) + "\n")
            p.stdin.flush()
            for line in p.stdout:
                m = json.loads(line)
                if m.get("id") == 2:
                    return [h for entry in m["result"]["data"] for h in entry["hooks"]]
            raise AssertionError("Codex's app server ended without listing its hooks")
        finally:
            p.kill()


CODEX_MARK = "# -- above: the harness's model settings; below: approvals, kept across runs --\n"


def codex_config_rest(place):
    """What config.toml holds below the harness's own settings: hook
    approvals (written by `codex_approve_all`, or by hookshot carrying
    them), which every run keeps."""
    path = os.path.join(place.home, ".codex", "config.toml")
    if not os.path.exists(path):
        return ""
    with open(path) as f:
        text = f.read()
    return text.split(CODEX_MARK, 1)[1] if CODEX_MARK in text else text


def codex_approve_all(place):
    """What approving every hook in Codex's `/hooks` screen writes: each
    hook's current hash under its key in config.toml."""
    hooks = [h for h in codex_hooks_list(place) if h["trustStatus"] != "trusted"]
    lines = [f'[hooks.state."{h["key"]}"]\ntrusted_hash = "{h["currentHash"]}"\n' for h in hooks]
    codex_home, _ = codex_config(place)
    path = os.path.join(codex_home, "config.toml")
    marked = False
    if os.path.exists(path):
        with open(path) as f:
            marked = CODEX_MARK in f.read()
    with open(path, "a") as f:
        f.write(("" if marked else CODEX_MARK) + "".join(lines))


def run_codex(place, turns, prompt="do the task", timeout=120, json_events=True, bypass_hook_trust=True,
              extra_env=None):
    """One `codex exec` session in `place`, its model (a custom provider on
    the Responses API) playing `turns`. Hooks run without Codex's review
    (`--dangerously-bypass-hook-trust`): what is compared is how they run;
    with `bypass_hook_trust=False` Codex runs what `codex_approve_all`
    approved and nothing else.
    `json_events=False` gives Codex's human output, the one that names hook
    runs and their failures (`hook: PreToolUse Failed`)."""
    exe = codex_binary()
    script = mock_models.Script(turns)
    server, url = mock_models.serve(script, "openai")
    codex_home, catalog = codex_config(place)
    rest = codex_config_rest(place)
    with open(os.path.join(codex_home, "config.toml"), "w") as f:
        f.write(f'model = "gpt-mock"\nmodel_provider = "mock"\nmodel_catalog_json = "{catalog}"\n\n'
                f'[model_providers.mock]\nname = "mock"\n'
                f'base_url = "{url}/v1"\nwire_api = "responses"\nenv_key = "MOCK_KEY"\n\n{CODEX_MARK}{rest}')
    env = place.env()
    env.update({"MOCK_KEY": "k", "CODEX_HOME": codex_home}, **(extra_env or {}))
    start = time.time()
    try:
        proc = subprocess.run(
            [exe, "exec", *(["--json"] if json_events else []), "--skip-git-repo-check",
             "--dangerously-bypass-approvals-and-sandbox",
             *(["--dangerously-bypass-hook-trust"] if bypass_hook_trust else []), prompt],
            cwd=place.project, env=env, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    finally:
        server.shutdown()
        server.server_close()
    return Run(proc, script, time.time() - start)


# With `GOOGLE_GEMINI_BASE_URL` set, gemini-cli picks its "gateway" method
# unless the settings choose the API key (a system defaults file would be
# cleaner, but gemini-cli skips one under a world-writable /tmp).
GEMINI_AUTH = {"security": {"auth": {"selectedType": "gemini-api-key"}}}


def gemini_binary():
    prefix = install(*agent("gemini"))
    exe = os.path.join(prefix, "node_modules", ".bin", "gemini")
    if not os.access(exe, os.X_OK):
        raise Unavailable(f"no gemini-cli at {exe}")
    return exe


def headless(place, turns, kind, command, timeout):
    """One headless session in `place`: a mock model of `kind` plays
    `turns`; `command(url)` gives the agent's argv and its variables
    besides the place's."""
    script = mock_models.Script(turns)
    server, url = mock_models.serve(script, kind)
    argv, extra = command(url)
    env = dict(place.env(), **extra)
    start = time.time()
    try:
        proc = subprocess.run(argv, cwd=place.project, env=env, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    finally:
        server.shutdown()
        server.server_close()
    return Run(proc, script, time.time() - start)


def run_gemini(place, turns, prompt="do the task", timeout=120):
    """One headless gemini-cli session in `place`, its model (the Gemini API
    at `GOOGLE_GEMINI_BASE_URL`) playing `turns`."""
    exe = gemini_binary()
    return headless(place, turns, "gemini", lambda url: (
        [exe, "-p", prompt, "--yolo", "-o", "json"],
        {"GEMINI_API_KEY": "fake", "GOOGLE_GEMINI_BASE_URL": url, "GEMINI_CLI_TRUST_WORKSPACE": "true"}), timeout)


def run_copilot(place, turns, prompt="do the task", timeout=120):
    """One headless Copilot CLI session in `place`, offline, its model (a
    bring-your-own provider on the Responses API) playing `turns`, every
    tool allowed and the project folder trusted. The code it unpacks on its
    first run is kept in the cache, beside the package."""
    exe = copilot_binary()
    return headless(place, turns, "openai", lambda url: (
        [exe, "-p", prompt, "--allow-all-tools", "--trust-folder"],
        {"COPILOT_OFFLINE": "true", "COPILOT_PROVIDER_BASE_URL": f"{url}/v1", "COPILOT_PROVIDER_API_KEY": "k",
         "COPILOT_MODEL": "gpt-mock", "COPILOT_PROVIDER_WIRE_API": "responses",
         "COPILOT_PKG_CACHE_HOME": os.path.join(CACHE, "copilot-pkg")}), timeout)


def run_qwen(place, turns, prompt="do the task", timeout=120):
    """One headless Qwen Code session in `place`, its model (on the
    Responses API) playing `turns`, every tool call accepted (`--yolo`)."""
    cli = os.path.join(install(*agent("qwen")), "node_modules", "@qwen-code", "qwen-code", "cli.js")
    return headless(place, turns, "openai", lambda url: (
        ["node", cli, "--auth-type", "openai-responses", "--openai-base-url", f"{url}/v1", "--openai-api-key", "k",
         "-m", "gpt-mock", "--yolo", prompt],
        {"OPENAI_API_KEY": "k", "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1"}), timeout)


def run_cline(place, turns, prompt="do the task", timeout=120):
    """One `cline --json` session in `place`, its model (an OpenAI-compatible
    provider on Chat Completions) playing `turns`. `--data-dir` keeps its
    state in the place and runs it without its background hub, so nothing
    outlives the run; its hooks are the executables in `~/.cline/hooks/`."""
    exe = os.path.join(install(*agent("cline")), "node_modules", ".bin", "cline")
    script = mock_models.Script(turns)
    server, url = mock_models.serve(script, "openai")
    data = os.path.join(place.root, "cline-data")
    env = dict(place.env(), OPENAI_API_KEY="k")
    start = time.time()
    try:
        subprocess.run([exe, "auth", "-p", "openai", "-k", "k", "-m", "gpt-mock", "-b", f"{url}/v1",
                        "--data-dir", data], cwd=place.project, env=env, capture_output=True, text=True,
                       timeout=timeout, stdin=subprocess.DEVNULL, check=True)
        proc = subprocess.run([exe, "--json", "--data-dir", data, "-c", place.project, "--retries", "1",
                               "-t", str(timeout), prompt], cwd=place.project, env=env, capture_output=True,
                              text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    finally:
        server.shutdown()
        server.server_close()
    return Run(proc, script, time.time() - start)
