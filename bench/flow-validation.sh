#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The flow-level fabric (ai-fabric-sim --fabric=flow) against the packet model on every
# shipped scenario (the built-in default and traces/scenarios/*.json): each runs once
# with packets (--fast-forward=off: every frame, the reference; --fast-forward=on with
# --reference=ff, the fast-forwarded packet model, within 0.01 % of it on the scale
# curve) and once at flow level. For each: wall time, events and peak memory of both,
# the simulated time of both (one iteration) and their difference, and per collective (kind and group
# kind, e.g. "all-reduce dp") the mean call time of both and their difference; the
# worst collective's difference is in the table, every collective's in the per-scenario
# files. Writes flow-validation.md in --out.
#
# Usage (after a Release build in build/):
#   bash bench/flow-validation.sh [--out=DIR] [--reference=packets|ff] [--timeout=SECONDS]
#                                 [SCENARIO ...]
# SCENARIO is "default" or a file name in traces/scenarios/ without .json; default: all.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
sim=build/ai-fabric-sim
[[ -x $sim ]] || { echo "flow-validation.sh: build $sim first (scripts/build-and-test.sh)" >&2; exit 1; }
out=bench-flow-validation
reference=packets
limit=0
names=()
for arg in "$@"; do
    case $arg in
    --out=*) out=${arg#*=} ;;
    --reference=*) reference=${arg#*=} ;;
    --timeout=*) limit=${arg#*=} ;;
    --*) echo "flow-validation.sh: $arg: unknown option (--out=DIR, --reference=packets|ff, --timeout=SECONDS)" >&2; exit 1 ;;
    *) names+=("$arg") ;;
    esac
done
[[ $reference == packets || $reference == ff ]] ||
    { echo "flow-validation.sh: --reference=$reference: expected packets or ff" >&2; exit 1; }
[[ $limit =~ ^[0-9]+$ ]] || { echo "flow-validation.sh: --timeout=$limit: expected whole seconds" >&2; exit 1; }
if [[ ${#names[@]} -eq 0 ]]; then
    names=(default)
    for f in traces/scenarios/*.json; do
        names+=("$(basename "$f" .json)")
    done
fi
mkdir -p "$out"
table=$out/flow-validation.md
{
    echo "| scenario | GPUs | $reference wall s | flow wall s | $reference events | flow events | $reference MiB | flow MiB | $reference simulated ms | flow simulated ms | difference | worst collective | its difference |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} >"$table"
ffFlag=off
[[ $reference == ff ]] && ffFlag=on
for name in "${names[@]}"; do
    scenario=()
    if [[ $name != default ]]; then
        file=traces/scenarios/$name.json
        [[ -f $file ]] || { echo "flow-validation.sh: $name: no $file" >&2; exit 1; }
        scenario=(--scenario="$file")
    fi
    for mode in "$reference" flow; do
        dir=$out/$name-$mode
        cmd=("$sim" "${scenario[@]}" --progress=0 --plots=0 --out="$dir")
        if [[ $mode == flow ]]; then
            cmd+=(--fabric=flow)
        else
            cmd+=(--fast-forward="$ffFlag")
        fi
        ((limit == 0)) || cmd=(timeout "$limit" "${cmd[@]}")
        echo "== $name ($mode)"
        rm -rf "$dir" # never another run's results
        status=0
        /usr/bin/time -f 'peak_kib %M wall_s %e' -o "$out/$name-$mode.time" "${cmd[@]}" \
            >"$out/$name-$mode.log" 2>&1 || status=$?
        if ((status != 0)); then
            echo "flow-validation.sh: $name ($mode): exit $status, see $out/$name-$mode.log" >&2
        fi
    done
    python3 - "$out" "$name" "$reference" >>"$table" <<'PY'
import json, os, sys
out, name, ref = sys.argv[1:4]
def load(mode):
    path = f"{out}/{name}-{mode}/results.json"
    if not os.path.exists(path):
        return None, None, None
    with open(f"{out}/{name}-{mode}.time") as t:
        # The format's line is the last (GNU time puts an exit status line before it).
        f = t.read().strip().split("\n")[-1].split()
        peak, wall = int(f[1]) / 1024, float(f[3])
    return json.load(open(path)), peak, wall
r, rpeak, rwall = load(ref)
f, fpeak, fwall = load("flow")
if r is None or f is None:
    print(f"| {name} | | {rwall or ''} | {fwall or ''} | | | | | | | did not finish | | |")
    sys.exit(0)
def calls(res):
    total, count = {}, {}
    for c in res["communication"]:
        key = c["collective"] + " " + c["group_kind"]
        total[key] = total.get(key, 0) + c["total_s"]
        count[key] = count.get(key, 0) + c["calls"]
    return {key: total[key] / count[key] for key in total}
rc, fc = calls(r), calls(f)
rows = []
for key in sorted(rc):
    if key in fc:
        rows.append((key, rc[key] * 1e6, fc[key] * 1e6, 100 * (fc[key] - rc[key]) / rc[key]))
with open(f"{out}/{name}-collectives.md", "w") as o:
    o.write(f"| collective | {ref} mean us | flow mean us | difference |\n|---|---|---|---|\n")
    for key, a, b, d in rows:
        o.write(f"| {key} | {a:.1f} | {b:.1f} | {d:+.2f} % |\n")
worst = max(rows, key=lambda x: abs(x[3])) if rows else ("", 0, 0, 0)
ri, fi = r["simulated_s"], f["simulated_s"]
gpus = r["workload"].get("ranks", "")
print(f"| {name} | {gpus} | {rwall:.1f} | {fwall:.1f} | {r['run']['events'] / 1e6:.1f} M "
      f"| {f['run']['events'] / 1e6:.1f} M | {rpeak:.0f} | {fpeak:.0f} | {ri * 1e3:.3f} "
      f"| {fi * 1e3:.3f} | {100 * (fi - ri) / ri:+.2f} % | {worst[0]} | {worst[3]:+.2f} % |")
PY
done
cat "$table"
