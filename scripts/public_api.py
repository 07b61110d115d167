#!/usr/bin/env python3
"""The public API of hookshot's library crates, one item a line, from
rustdoc's JSON (on the stable compiler, with RUSTC_BOOTSTRAP=1: rustdoc's
JSON output is not stable yet, and CI installs no nightly).

    python3 scripts/public_api.py           # rewrite docs/api/*.txt
    python3 scripts/public_api.py --check   # fail if they differ

A change of the listing is a change of what embedders compile against:
it shows in review as a diff of docs/api/, and CI fails until the
listing is rewritten with it.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "api"
# package name -> library name (its JSON file under target/doc/)
CRATES = {"hookshot": "hookshot", "hookshot-core": "hookshot_core"}


def rustdoc_json(package, lib):
    env = dict(os.environ, RUSTC_BOOTSTRAP="1")
    subprocess.run(
        ["cargo", "rustdoc", "-q", "-p", package, "--lib", "--", "-Z", "unstable-options", "--output-format", "json"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return json.loads((target / "doc" / f"{lib}.json").read_text())


class Api:
    def __init__(self, doc):
        self.doc = doc
        self.ix = doc["index"]
        self.lines = set()

    def item(self, i):
        return self.ix.get(str(i))

    def ty(self, t):
        if t is None:
            return "()"
        (kind, v), = t.items()
        if kind == "resolved_path":
            args = self.generic_args(v.get("args"))
            return v["path"].split("::")[-1] + args
        if kind == "primitive":
            return v
        if kind == "generic":
            return v
        if kind == "borrowed_ref":
            life = (v["lifetime"] + " ") if v.get("lifetime") else ""
            mut = "mut " if v["is_mutable"] else ""
            return f"&{life}{mut}{self.ty(v['type'])}"
        if kind == "slice":
            return f"[{self.ty(v)}]"
        if kind == "array":
            return f"[{self.ty(v['type'])}; {v['len']}]"
        if kind == "tuple":
            return "(" + ", ".join(self.ty(x) for x in v) + ")"
        if kind == "impl_trait":
            return "impl " + " + ".join(self.bound(b) for b in v)
        if kind == "dyn_trait":
            return "dyn " + " + ".join(self.ty({"resolved_path": p["trait"]}) for p in v["traits"])
        if kind == "qualified_path":
            return f"<{self.ty(v['self_type'])}>::{v['name']}"
        if kind == "raw_pointer":
            return ("*mut " if v["is_mutable"] else "*const ") + self.ty(v["type"])
        if kind == "function_pointer":
            return "fn(..)"
        return kind

    def bound(self, b):
        if "trait_bound" in b:
            return self.ty({"resolved_path": b["trait_bound"]["trait"]})
        if "outlives" in b:
            return b["outlives"]
        return "?"

    def generic_args(self, a):
        if not a:
            return ""
        if "angle_bracketed" in a:
            parts = []
            for x in a["angle_bracketed"]["args"]:
                if "type" in x:
                    parts.append(self.ty(x["type"]))
                elif "lifetime" in x:
                    parts.append(x["lifetime"])
                elif "const" in x:
                    parts.append(str(x["const"].get("expr", "_")))
            for c in a["angle_bracketed"].get("constraints", []):
                binding = c.get("binding", {})
                if "equality" in binding and "type" in binding["equality"]:
                    parts.append(f"{c['name']} = {self.ty(binding['equality']['type'])}")
            return "<" + ", ".join(parts) + ">" if parts else ""
        if "parenthesized" in a:
            p = a["parenthesized"]
            out = f" -> {self.ty(p['output'])}" if p.get("output") else ""
            return "(" + ", ".join(self.ty(x) for x in p["inputs"]) + ")" + out
        return ""

    def fn(self, name, f):
        sig = f["sig"]
        args = ", ".join(n if n == "self" else f"{n}: {self.ty(t)}" for n, t in sig["inputs"])
        out = sig.get("output")
        ret = f" -> {self.ty(out)}" if out else ""
        asy = "async " if f["header"].get("is_async") else ""
        return f"{asy}fn {name}({args}){ret}"

    def walk(self, i, path, seen):
        it = self.item(i)
        if it is None or it["visibility"] != "public" and "impl" not in it["inner"]:
            return
        (kind, v), = it["inner"].items()
        name = it.get("name")
        here = f"{path}::{name}" if name else path
        if kind == "use":
            target = self.item(v["id"]) if v.get("id") is not None else None
            if target is None or v["is_glob"]:
                self.lines.add(f"pub use {path}::{v['name']} = {v['source']}")
                return
            # Listed under the name it is re-exported as.
            target = dict(target, name=v["name"])
            key = (str(v["id"]), path)
            if key in seen:
                return
            seen.add(key)
            self.walk_item(target, path, seen)
            return
        self.walk_item(it, path, seen)

    def walk_item(self, it, path, seen):
        (kind, v), = it["inner"].items()
        name = it.get("name")
        here = f"{path}::{name}" if name else path
        ne = " #[non_exhaustive]" if any("non_exhaustive" in str(a) for a in it.get("attrs", [])) else ""
        if kind == "module":
            self.lines.add(f"mod {here}")
            for c in v["items"]:
                self.walk(c, here, seen)
        elif kind == "function":
            self.lines.add(f"{here}: {self.fn(name, v)}")
        elif kind == "constant":
            self.lines.add(f"const {here}: {self.ty(v['type'])}")
        elif kind == "static":
            self.lines.add(f"static {here}: {self.ty(v['type'])}")
        elif kind == "type_alias":
            self.lines.add(f"type {here} = {self.ty(v['type'])}")
        elif kind == "struct":
            self.lines.add(f"struct {here}{ne}")
            sk = v["kind"]
            fields = sk.get("plain", {}).get("fields", []) if isinstance(sk, dict) else []
            if isinstance(sk, dict) and "tuple" in sk:
                fields = [f for f in sk["tuple"] if f is not None]
            for f in fields:
                fi = self.item(f)
                if fi and fi["visibility"] == "public":
                    self.lines.add(f"{here}.{fi['name']}: {self.ty(fi['inner']['struct_field'])}")
            self.impls(here, v["impls"])
        elif kind == "enum":
            self.lines.add(f"enum {here}{ne}")
            for var in v["variants"]:
                vi = self.item(var)
                self.lines.add(f"{here}::{vi['name']}")
            self.impls(here, v["impls"])
        elif kind == "trait":
            self.lines.add(f"trait {here}")
            for m in v["items"]:
                mi = self.item(m)
                if mi and "function" in mi["inner"]:
                    self.lines.add(f"{here}::{self.fn(mi['name'], mi['inner']['function'])}")
        elif kind == "macro":
            self.lines.add(f"macro {here}")

    def impls(self, here, impls):
        for i in impls:
            imp = self.item(i)
            if imp is None:
                continue
            v = imp["inner"]["impl"]
            if v.get("is_synthetic") or v.get("blanket_impl") is not None:
                continue
            if v.get("trait") is not None:
                self.lines.add(f"impl {self.ty({'resolved_path': v['trait']})} for {here}")
                continue
            for m in v["items"]:
                mi = self.item(m)
                if mi and mi["visibility"] == "public" and "function" in mi["inner"]:
                    self.lines.add(f"{here}::{self.fn(mi['name'], mi['inner']['function'])}")
                elif mi and mi["visibility"] == "public" and "assoc_const" in mi["inner"]:
                    self.lines.add(f"const {here}::{mi['name']}: {self.ty(mi['inner']['assoc_const']['type'])}")


def listing(package, lib):
    doc = rustdoc_json(package, lib)
    api = Api(doc)
    root = api.item(doc["root"])
    seen = set()
    for c in root["inner"]["module"]["items"]:
        api.walk(c, lib, seen)
    return "".join(line + "\n" for line in sorted(api.lines))


def main():
    check = "--check" in sys.argv[1:]
    OUT.mkdir(parents=True, exist_ok=True)
    differ = []
    for package, lib in CRATES.items():
        text = listing(package, lib)
        path = OUT / f"{lib}.txt"
        old = path.read_text() if path.exists() else ""
        if old != text:
            differ.append(path)
            if not check:
                path.write_text(text)
    if check and differ:
        for p in differ:
            print(f"{p.relative_to(ROOT)}: the public API changed; run `python3 scripts/public_api.py` and review the diff")
        sys.exit(1)
    if not check:
        for p in differ:
            print(f"rewrote {p.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
