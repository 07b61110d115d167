#!/usr/bin/env bash
# hookshot side by side with gemini-cli-core and the raw spawn floor, on the
# same machine, in one run, on the identical workload.
#
#   bench/compare.sh [> table.md]      env: ITER (default 30)
#
# 1. builds hookshot (release);
# 2. runs ../shared/bench-anchor/run-anchors.sh, which measures gemini-cli-core
#    0.61 and the tokio spawn floor and leaves each case's settings.json and
#    the hook input it used (SETTINGS_OUT);
# 3. runs `hookshot bench` on those same files;
# 4. prints a Markdown table of ratios (hookshot / gemini, hookshot / floor);
# 5. runs bench/fire.py, bench/load.py, bench/serve.py and bench/warm.py (each prints its
#    own table against a baseline of the same run).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"
ANCHOR="${ANCHOR:-$ROOT/../shared/bench-anchor/run-anchors.sh}"
ITER="${ITER:-30}"
export ITER

work="$(mktemp -d "${TMPDIR:-/tmp}/hookshot-compare.XXXXXX")"
trap 'rm -rf "$work"' EXIT

echo "[compare] building hookshot" >&2
cargo build --release --quiet
BIN="$ROOT/target/release/hookshot"

echo "[compare] anchors: gemini-cli-core and the spawn floor" >&2
SETTINGS_OUT="$work/settings" bash "$ANCHOR" > "$work/anchors.json"

echo "[compare] hookshot on the same settings" >&2
input="$work/settings/before_tool.input.json"
: > "$work/hookshot.jsonl"
for settings in "$work"/settings/*.settings.json; do
  case_name="$(basename "$settings" .settings.json)"
  extra=()
  case "$case_name" in plan_*) extra=(--plan-only) ;; esac
  # Hooks run from an empty directory, as the anchors' hooks do.
  (cd "$work" && "$BIN" bench BeforeTool --settings "$settings" --input "$input" \
      --iterations "$ITER" --warmup 5 --json "${extra[@]}") |
    python3 -c 'import json,sys; r=json.load(sys.stdin); r["case"]=sys.argv[1]; print(json.dumps(r))' "$case_name" \
    >> "$work/hookshot.jsonl"
done

python3 - "$work/anchors.json" "$work/hookshot.jsonl" <<'PY'
import json, platform, os, sys, datetime
anchors = json.load(open(sys.argv[1]))
ours = {r["case"]: r for r in map(json.loads, open(sys.argv[2]))}

def cases(engine):
    """name -> mean in the case's unit (ms for events, us for plans)."""
    return {c["name"]: c for c in engine["cases"]}

gem, floor = cases(anchors["gemini"]), cases(anchors["floor"])
print(f"hookshot vs gemini-cli-core 0.61 and the tokio spawn floor, {datetime.date.today()}, "
      f"{os.cpu_count()} cores, {platform.machine()}, ITER={os.environ.get('ITER', '30')}\n")
print("| case | hookshot | gemini | floor | hookshot / gemini | hookshot / floor |")
print("|---|---:|---:|---:|---:|---:|")
for mode in ("parallel", "sequential"):
    for n in (1, 4, 16):
        name = f"before_tool_{mode}_n{n}"
        h, g, f = ours.get(name), gem.get(name), floor.get(f"spawn_{mode}_n{n}")
        if not (h and g and f):
            print(f"| {name} | missing | | | | |")
            continue
        hm, gm, fm = h["mean_ms"], g["mean"], f["mean"]
        print(f"| {name} (mean) | {hm:.2f} ms | {gm:.2f} ms | {fm:.2f} ms | {hm/gm:.2f} | {hm/fm:.2f} |")
for name in ("plan_h1000", "plan_h10000"):
    h, g = ours.get(name), gem.get(name)
    if not (h and g):
        print(f"| {name} | missing | | | | |")
        continue
    gu = g["mean"] * (1000 if g["unit"] == "ms" else 1)
    print(f"| {name} | {h['plan_us']:.1f} µs | {gu:.0f} µs | | {h['plan_us']/gu:.4f} ({gu/h['plan_us']:.0f}x faster) | |")
PY

# Process-level figures, each against its own baseline in the same run.
echo "[compare] fire as a process against /bin/true" >&2
python3 bench/fire.py --hookshot "$BIN"
echo "[compare] load time against the number of hooks" >&2
python3 bench/load.py "$BIN"
echo "[compare] sidecar throughput on stdio" >&2
python3 bench/serve.py "$BIN"
echo "[compare] warm process hooks across one-shot fires" >&2
python3 bench/warm.py --hookshot "$BIN"
