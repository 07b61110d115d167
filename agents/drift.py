"""What each installed agent says of its own hooks, read from what it ships.

- Codex embeds a JSON Schema of every hook's input and output
  (`pre-tool-use.command.input`, ...) in its binary: the events (each
  input's `hook_event_name`), the input fields and the answer fields,
  `hookSpecificOutput`'s included.
- Claude Code's binary holds the zod schema of each event's
  `hookSpecificOutput` (`hookEventName:X("UserPromptSubmit"),
  additionalContext:...`) and the list of its hook events.
- gemini-cli's bundle holds its `HookEventName` enum and reads each
  `hookSpecificOutput` field it understands by name.

- Cline's and GitHub Copilot CLI's SDKs ship type declarations of their
  hooks: Cline's hook file names, payload and answer schema; Copilot
  CLI's `SessionHooks` (its camelCase events) and each event's
  `...HookInput` and `...HookOutput` interface.

`test_drift.py` compares these with what hookshot was checked against
(`known.json`), so an agent release that adds an event, an input field or
an answer field fails a test naming it, the week it ships.
"""

import glob
import json
import os
import re
import subprocess
import tempfile


def _json_documents(data, marker):
    """Every JSON object in `data` (bytes) that starts with `marker`."""
    decoder = json.JSONDecoder()
    text = data.decode("utf-8", "replace")
    out = []
    for m in re.finditer(re.escape(marker), text):
        try:
            doc, _ = decoder.raw_decode(text, m.start())
        except ValueError:
            continue
        out.append(doc)
    return out


def _properties(schema, path=()):
    """The property names of an object schema (`$ref`s to its definitions
    followed), and those of `hookSpecificOutput` as `hookSpecificOutput.X`."""
    defs = schema.get("definitions", {})

    def resolve(s):
        while isinstance(s, dict) and ("$ref" in s or len(s.get("allOf", [])) == 1):
            s = s["allOf"][0] if "$ref" not in s else defs.get(s["$ref"].rsplit("/", 1)[-1], {})
        return s

    names = set()
    for name, sub in resolve(schema).get("properties", {}).items():
        names.add(name)
        if name == "hookSpecificOutput":
            sub = resolve(sub)
            variants = sub.get("oneOf") or sub.get("anyOf") or [sub]
            for v in variants:
                for inner in resolve(v).get("properties", {}):
                    names.add(f"hookSpecificOutput.{inner}")
    return names


def codex(binary):
    """{"events": {...}, "input": {event: fields}, "output": {event: fields}}."""
    with open(binary, "rb") as f:
        data = f.read()
    docs = [d for d in _json_documents(data, '{\n  "$schema"') if isinstance(d.get("title"), str)]
    events, inputs, outputs = set(), {}, {}
    for d in docs:
        title = d["title"]
        m = re.fullmatch(r"([a-z-]+)\.command\.(input|output)", title)
        if not m:
            continue
        event = "".join(w.capitalize() for w in m.group(1).split("-"))
        const = d.get("properties", {}).get("hook_event_name", {}).get("const")
        if m.group(2) == "input":
            event = const or event
            events.add(event)
            inputs[event] = sorted(_properties(d))
        else:
            outputs[event] = sorted(_properties(d))
    # Events without an embedded schema of their own (the model-request
    # ones in 0.171) are in the app server's protocol: its HookEventName.
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([binary, "app-server", "generate-json-schema", "--out", out], check=True,
                       capture_output=True, timeout=120)
        with open(os.path.join(out, "v2", "HooksListResponse.json")) as f:
            protocol = json.load(f)
    for name in protocol["definitions"]["HookEventName"]["enum"]:
        events.add(name[0].upper() + name[1:])
    return {"events": sorted(events), "input": inputs, "output": outputs}


def _scan(text, start, on_key=None):
    """Walks a JavaScript object literal from the `{` at `start`, skipping
    strings; calls `on_key(i)` at each place a key may start at the
    literal's top level. Returns the index just past its closing `}`."""
    depth, i, quote = 0, start, None
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'`":
            quote = c
        elif c in "{([":
            depth += 1
        elif c in "})]":
            depth -= 1
            if depth == 0:
                return i + 1
        elif on_key and depth == 1 and text[i - 1] in "{,":
            on_key(i)
        i += 1
    return len(text)


_KEY = re.compile(r"([A-Za-z_$][\w$]*)\s*:")


def _top_level_keys(text, start):
    """The keys at the top level of the object literal at `start`, and the
    index just past it."""
    keys = []

    def on_key(i):
        m = _KEY.match(text, i)
        if m:
            keys.append(m.group(1))

    end = _scan(text, start, on_key)
    return keys, end


def claude(binary):
    """{"events": [...], "output": {event: hookSpecificOutput fields}}."""
    with open(binary, "rb") as f:
        text = f.read().decode("latin-1")
    outputs = {}
    for m in re.finditer(r"\{hookEventName:[\w$]+\(\"(\w+)\"\)", text):
        keys, _ = _top_level_keys(text, m.start())
        keys = [k for k in keys if k != "hookEventName"]
        outputs.setdefault(m.group(1), set()).update(f"hookSpecificOutput.{k}" for k in keys)
    # The list of hook events: the longest array of names holding both
    # the first and the last of the long-standing ones.
    best = []
    for m in re.finditer(r"\[(\"[A-Z]\w+\"(?:,\"[A-Z]\w+\")+)\]", text):
        names = re.findall(r"\"(\w+)\"", m.group(1))
        if "PreToolUse" in names and "SessionEnd" in names and len(names) > len(best):
            best = names
    return {"events": sorted(set(best)), "output": {e: sorted(f) for e, f in outputs.items()}}


def gemini(bundle_dir):
    """{"events": [...], "output": {"*": hookSpecificOutput fields read}}."""
    events, fields = set(), set()
    for path in glob.glob(os.path.join(bundle_dir, "*.js")):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for m in re.finditer(r"HookEventName\d*\[\"(\w+)\"\] = \"(\w+)\"", text):
            events.add(m.group(2))
        for m in re.finditer(r"hookSpecificOutput(?:\?\.|\.)\[?\"?(\w+)|\"(\w+)\" in (?:this\.)?hookSpecificOutput",
                             text):
            fields.add(f"hookSpecificOutput.{m.group(1) or m.group(2)}")
    return {"events": sorted(events), "output": {"*": sorted(fields)}}


def cline(package_root):
    """Cline's hook files (its `HookConfigFileName` enum), the payload's
    fields (`HookEventPayloadBase`) and the answer's (`HookOutputSchema`),
    from the type declarations its SDK packages ship."""
    core = os.path.join(package_root, "node_modules", "@cline", "core", "dist", "hooks")
    shared = os.path.join(package_root, "node_modules", "@cline", "shared", "dist", "hooks")

    def block(path, start):
        with open(path) as f:
            text = f.read()
        i = text.index(start)
        depth, j = 0, text.index("{", i)
        for k in range(j, len(text)):
            depth += {"{": 1, "}": -1}.get(text[k], 0)
            if depth == 0:
                return text[j + 1:k]
        raise ValueError(f"{start} has no end in {path}")

    events = re.findall(r"(\w+) = \"\w+\"", block(os.path.join(core, "hook-file-config.d.ts"),
                                                 "enum HookConfigFileName"))
    output = re.findall(r"^\s*(\w+): z\.", block(os.path.join(core, "subprocess.d.ts"), "HookOutputSchema"), re.M)
    payload = re.findall(r"^    (\w+)\??:", block(os.path.join(shared, "events.d.ts"), "interface HookEventPayloadBase"),
                         re.M)
    return {"events": sorted(events), "input": {"*": sorted(payload)}, "output": {"*": sorted(output)}}


def _blocks(text, pattern):
    """The bodies (between the braces) of every declaration `pattern`
    starts, with its first group: `interface X {...}`, `type X = {...} |
    {...}` (each alternative's body joined)."""
    for m in re.finditer(pattern, text):
        j, bodies = m.end(), []
        while True:
            j = text.index("{", j)
            depth = 0
            for k in range(j, len(text)):
                depth += {"{": 1, "}": -1}.get(text[k], 0)
                if depth == 0:
                    break
            bodies.append(text[j + 1:k])
            rest = text[k + 1:].lstrip()
            if not rest.startswith("|"):
                break
            j = k + 1
        yield m.group(1), "\n".join(bodies)


def copilot(types_path):
    """GitHub Copilot CLI's own hook events (its SDK's `SessionHooks`:
    `onPreToolUse` is `preToolUse`), the fields of every event's input
    (`BaseHookInput` and each `...HookInput`) and answer (each
    `...HookOutput`), from its SDK's `types.d.ts`."""
    with open(types_path) as f:
        text = f.read()
    hooks = dict(_blocks(text, r"export interface (SessionHooks) "))["SessionHooks"]
    events = [n[0].lower() + n[1:] for n in re.findall(r"^\s+on(\w+)\??:", hooks, re.M)]
    field = re.compile(r"^\s+(\w+)\??:", re.M)
    inputs = {f for _, body in _blocks(text, r"export interface (\w*HookInput)\b[^{]*") for f in field.findall(body)}
    outputs = {f for _, body in _blocks(text, r"export (?:interface|type) (\w+HookOutput)\b[^{]*") for f in field.findall(body)}
    return {"events": sorted(events), "input": {"*": sorted(inputs)}, "output": {"*": sorted(outputs)}}
