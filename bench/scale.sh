#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The scaling curve of the main program: one training iteration of GPT-3 175B TP8 PP8 at
# DP 1, 2, 4, 8, 16 (64 to 1,024 GPUs: 8 x DP servers of 8 H100, rail-optimized 400G,
# spines = max(2, servers / 8), global batch 8 x DP) and of GPT-3 13B TP8 DP16 (128 GPUs),
# from the model configs in bench/scale/. For each point: wall time, scheduler events,
# bytes carried by all links, peak memory and the simulated iteration time; a table
# (scale.md) and, with gnuplot, a plot of wall time against GPUs (scale.png).
#
# Usage (after a Release build in build/):
#   bash bench/scale.sh [--max-gpus=N] [--timeout=SECONDS] [--out=DIR] [POINT ...]
# POINT is a config name without .json (gpt3-175b-dp4, ...); default: every point up to
# --max-gpus (default 1024). A point that runs past --timeout (default: none) is stopped
# and listed as such. The 1,024-GPU point takes most of an hour on one core.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
sim=build/ai-fabric-sim
[[ -x $sim ]] || { echo "scale.sh: build $sim first (scripts/build-and-test.sh)" >&2; exit 1; }
maxGpus=1024
limit=0
out=bench-scale-results
points=()
for arg in "$@"; do
    case $arg in
    --max-gpus=*) maxGpus=${arg#*=} ;;
    --timeout=*) limit=${arg#*=} ;;
    --out=*) out=${arg#*=} ;;
    --*) echo "scale.sh: $arg: unknown option (--max-gpus=N, --timeout=SECONDS, --out=DIR)" >&2; exit 1 ;;
    *) points+=("$arg") ;;
    esac
done
[[ $maxGpus =~ ^[0-9]+$ ]] || { echo "scale.sh: --max-gpus=$maxGpus: expected an integer" >&2; exit 1; }
[[ $limit =~ ^[0-9]+$ ]] || { echo "scale.sh: --timeout=$limit: expected whole seconds" >&2; exit 1; }
[[ ${#points[@]} -gt 0 ]] ||
    points=(gpt3-175b-dp1 gpt3-175b-dp2 gpt3-13b-dp16 gpt3-175b-dp4 gpt3-175b-dp8 gpt3-175b-dp16)
mkdir -p "$out"
table=$out/scale.md
data=$out/scale.dat
{
    echo "| point | GPUs | servers | spines | wall s | events | link bytes | peak MiB | iteration ms |"
    echo "|---|---|---|---|---|---|---|---|---|"
} >"$table"
echo "# gpus wall_s point" >"$data"
for point in "${points[@]}"; do
    config=bench/scale/$point.json
    [[ -f $config ]] || { echo "scale.sh: $point: no $config" >&2; exit 1; }
    read -r tp pp dp < <(python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); print(c["tp"], c["pp"], c["dp"])' "$config")
    gpus=$((tp * pp * dp))
    ((gpus <= maxGpus)) || continue
    servers=$((gpus / 8))
    spines=$((servers / 8 > 2 ? servers / 8 : 2))
    dir=$out/$point
    log=$out/$point.log
    cmd=("$sim" --workload="$config" --servers="$servers" --spines="$spines" --iterations=1
         --progress=0 --plots=0 --out="$dir")
    ((limit == 0)) || cmd=(timeout "$limit" "${cmd[@]}")
    echo "== $point: $gpus GPUs, $servers servers, $spines spines"
    status=0
    /usr/bin/time -f 'peak_kib %M wall_s %e' -o "$out/$point.time" "${cmd[@]}" >"$log" 2>&1 || status=$?
    peak=$(awk '/peak_kib/ {printf "%.0f", $2 / 1024}' "$out/$point.time")
    wall=$(awk '/peak_kib/ {print $4}' "$out/$point.time")
    if ((status != 0)) || [[ ! -f $dir/results.json ]]; then
        why="exit $status"
        ((status == 124)) && why="stopped after ${limit} s"
        echo "| $point | $gpus | $servers | $spines | > $wall ($why) | | | $peak | |" >>"$table"
        continue
    fi
    python3 - "$dir/results.json" "$point" "$gpus" "$servers" "$spines" "$wall" "$peak" >>"$table" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
point, gpus, servers, spines, wall, peak = sys.argv[2:8]
events = r["run"]["events"]
link_bytes = r["fabric"]["link_bytes"]
print(f"| {point} | {gpus} | {servers} | {spines} | {float(wall):.1f} | {events / 1e6:.1f} M "
      f"| {link_bytes / 1e9:.1f} GB | {peak} | {r['simulated_s'] * 1e3:.2f} |")
PY
    echo "$gpus $wall $point" >>"$data"
done
cat "$table"
if command -v gnuplot >/dev/null 2>&1 && [[ $(wc -l <"$data") -gt 1 ]]; then
    gnuplot <<GP
set terminal pngcairo size 800,500 font ',10'
set output '$out/scale.png'
set logscale xy
set xlabel 'GPUs'
set ylabel 'wall seconds, one iteration'
set key off
set grid
plot '$data' using 1:2 with linespoints pt 7, '' using 1:2:3 with labels offset 0,1 font ',8'
GP
    echo "plot: $out/scale.png"
fi
