#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The scaling curve of the main program: one training iteration of GPT-3 175B TP8 PP8 at
# DP 1, 2, 4, 8, 16 (64 to 1,024 GPUs: 8 x DP servers of 8 H100, rail-optimized 400G,
# spines = max(2, servers / 8), global batch 8 x DP) and of GPT-3 13B TP8 DP16 (128 GPUs),
# from the model configs in bench/scale/, with the steady-state fast-forward (ff, the
# default of ai-fabric-sim) and without it (packets, the reference). For each point and
# mode: wall time, scheduler events, packet-hops (frames sent on all links, skipped ones
# counted) and of those the ones simulated as packets, the chunks the NVSwitches
# delivered (where the events went), bytes carried by all links, peak memory, the
# simulated iteration time, the share of the RDMA bytes skipped and, with both modes, the
# difference of the iteration time; a table (scale.md) and, with gnuplot, a plot of wall
# time against GPUs, one line per mode (scale.png).
#
# Usage (after a Release build in build/):
#   bash bench/scale.sh [--max-gpus=N] [--timeout=SECONDS] [--modes=ff,packets] [--out=DIR]
#                       [POINT ...]
# POINT is a config name without .json (gpt3-175b-dp4, ...); default: every point up to
# --max-gpus (default 1024). A run past --timeout (default: none) is stopped and listed as
# such. The packet reference of the 1,024-GPU point takes hours on one core.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
sim=build/ai-fabric-sim
[[ -x $sim ]] || { echo "scale.sh: build $sim first (scripts/build-and-test.sh)" >&2; exit 1; }
maxGpus=1024
limit=0
out=bench-scale-results
modes=ff,packets
points=()
for arg in "$@"; do
    case $arg in
    --max-gpus=*) maxGpus=${arg#*=} ;;
    --timeout=*) limit=${arg#*=} ;;
    --out=*) out=${arg#*=} ;;
    --modes=*) modes=${arg#*=} ;;
    --*) echo "scale.sh: $arg: unknown option (--max-gpus=N, --timeout=SECONDS, --modes=ff,packets, --out=DIR)" >&2; exit 1 ;;
    *) points+=("$arg") ;;
    esac
done
[[ $maxGpus =~ ^[0-9]+$ ]] || { echo "scale.sh: --max-gpus=$maxGpus: expected an integer" >&2; exit 1; }
[[ $limit =~ ^[0-9]+$ ]] || { echo "scale.sh: --timeout=$limit: expected whole seconds" >&2; exit 1; }
IFS=, read -r -a modeList <<<"$modes"
for mode in "${modeList[@]}"; do
    [[ $mode == ff || $mode == packets ]] ||
        { echo "scale.sh: --modes=$modes: expected ff, packets or both (ff,packets)" >&2; exit 1; }
done
[[ ${#points[@]} -gt 0 ]] ||
    points=(gpt3-175b-dp1 gpt3-175b-dp2 gpt3-13b-dp16 gpt3-175b-dp4 gpt3-175b-dp8 gpt3-175b-dp16)
mkdir -p "$out"
table=$out/scale.md
{
    echo "| point | GPUs | servers | spines | mode | wall s | events | packet-hops | simulated | NVLink chunks | link bytes | peak MiB | iteration ms | skipped | vs packets |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} >"$table"
for mode in "${modeList[@]}"; do
    echo "# gpus wall_s point" >"$out/scale-$mode.dat"
done
for point in "${points[@]}"; do
    config=bench/scale/$point.json
    [[ -f $config ]] || { echo "scale.sh: $point: no $config" >&2; exit 1; }
    read -r tp pp dp < <(python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); print(c["tp"], c["pp"], c["dp"])' "$config")
    gpus=$((tp * pp * dp))
    ((gpus <= maxGpus)) || continue
    servers=$((gpus / 8))
    spines=$((servers / 8 > 2 ? servers / 8 : 2))
    # The reference first, so that the fast-forwarded row can say how far it is from it.
    for mode in packets ff; do
        [[ ,$modes, == *,$mode,* ]] || continue
        dir=$out/$point-$mode
        log=$out/$point-$mode.log
        flag=on
        [[ $mode == packets ]] && flag=off
        cmd=("$sim" --workload="$config" --servers="$servers" --spines="$spines" --iterations=1
             --fast-forward="$flag" --progress=0 --plots=0 --out="$dir")
        ((limit == 0)) || cmd=(timeout "$limit" "${cmd[@]}")
        echo "== $point ($mode): $gpus GPUs, $servers servers, $spines spines"
        status=0
        /usr/bin/time -f 'peak_kib %M wall_s %e' -o "$out/$point-$mode.time" "${cmd[@]}" >"$log" 2>&1 ||
            status=$?
        peak=$(awk '/peak_kib/ {printf "%.0f", $2 / 1024}' "$out/$point-$mode.time")
        wall=$(awk '/peak_kib/ {print $4}' "$out/$point-$mode.time")
        if ((status != 0)) || [[ ! -f $dir/results.json ]]; then
            why="exit $status"
            ((status == 124)) && why="stopped after ${limit} s"
            echo "| $point | $gpus | $servers | $spines | $mode | > $wall ($why) | | | | | | $peak | | | |" >>"$table"
            continue
        fi
        python3 - "$dir/results.json" "$out/$point-packets/results.json" "$point" "$gpus" \
            "$servers" "$spines" "$mode" "$wall" "$peak" >>"$table" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
ref = sys.argv[2]
point, gpus, servers, spines, mode, wall, peak = sys.argv[3:10]
events = r["run"]["events"]
link_bytes = r["fabric"]["link_bytes"]
hops = r["fabric"]["link_frames"]
simulated = hops - r["fabric"]["link_frames_skipped"]
chunks = r["fabric"]["nvlink_chunks"]
ff = r.get("fast_forward", {})
skipped = f"{100 * ff['skipped_fraction']:.1f} %" if "skipped_fraction" in ff else ""
diff = ""
if mode == "ff" and os.path.exists(ref):
    t = json.load(open(ref))["simulated_s"]
    diff = f"{100 * (r['simulated_s'] - t) / t:+.3f} %"
print(f"| {point} | {gpus} | {servers} | {spines} | {mode} | {float(wall):.1f} | {events / 1e6:.1f} M "
      f"| {hops / 1e6:.1f} M | {simulated / 1e6:.1f} M | {chunks / 1e6:.1f} M "
      f"| {link_bytes / 1e9:.1f} GB | {peak} | {r['simulated_s'] * 1e3:.2f} "
      f"| {skipped} | {diff} |")
PY
        echo "$gpus $wall $point" >>"$out/scale-$mode.dat"
    done
done
cat "$table"
plots=()
for mode in "${modeList[@]}"; do
    [[ $(wc -l <"$out/scale-$mode.dat") -gt 1 ]] &&
        plots+=("'$out/scale-$mode.dat' using 1:2 with linespoints pt 7 title '$mode'")
done
if command -v gnuplot >/dev/null 2>&1 && ((${#plots[@]} > 0)); then
    plotList=$(IFS=,; echo "${plots[*]}")
    gnuplot <<GP
set terminal pngcairo size 800,500 font ',10'
set output '$out/scale.png'
set logscale xy
set xlabel 'GPUs'
set ylabel 'wall seconds, one iteration'
set key top left
set grid
plot $plotList
GP
    echo "plot: $out/scale.png"
fi
