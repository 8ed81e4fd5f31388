#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The scaling curve of the main program: one training iteration of GPT-3 175B TP8 PP8 at
# DP 1, 2, 4, 8, 16 (64 to 1,024 GPUs: 8 x DP servers of 8 H100, rail-optimized 400G,
# spines = max(2, servers / 8) up to 16, pods of 128 servers beyond 128, global batch
# 8 x DP) and of GPT-3 13B TP8 DP16 (128 GPUs), from the model configs in bench/scale/,
# with the steady-state fast-forward (ff, the default of ai-fabric-sim) and without it
# (packets, the reference); and at flow level (flow: --fabric=flow, also for DP 32 to
# 256, 2,048 to 16,384 GPUs). For each point and
# mode: wall time, scheduler events, packet-hops (frames sent on all links, skipped ones
# counted) and of those the ones simulated as packets, the chunks the NVSwitches
# delivered (where the events went), bytes carried by all links, peak memory, the
# simulated iteration time, the share of the RDMA bytes skipped and the difference of
# the iteration time from the packet reference (or, without it, from ff); a table
# (scale.md) and, with gnuplot, a plot of wall time against GPUs, one line per mode
# (scale.png). Flow rows have no frames: their packet columns are empty.
#
# Usage (after a Release build in build/):
#   bash bench/scale.sh [--max-gpus=N] [--timeout=SECONDS] [--modes=ff,packets,flow]
#                       [--out=DIR] [POINT ...]
# POINT is a config name without .json (gpt3-175b-dp4, ...); default: every point up to
# --max-gpus (default 1024) but the flow-only ones (DP 32 and up: name them, or give
# --max-gpus above 1024 with --modes=flow). A run past --timeout (default: none) is
# stopped and listed as such. The packet reference of the 1,024-GPU point takes hours
# on one core.
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
    --*) echo "scale.sh: $arg: unknown option (--max-gpus=N, --timeout=SECONDS, --modes=ff,packets,flow, --out=DIR)" >&2; exit 1 ;;
    *) points+=("$arg") ;;
    esac
done
[[ $maxGpus =~ ^[0-9]+$ ]] || { echo "scale.sh: --max-gpus=$maxGpus: expected an integer" >&2; exit 1; }
[[ $limit =~ ^[0-9]+$ ]] || { echo "scale.sh: --timeout=$limit: expected whole seconds" >&2; exit 1; }
IFS=, read -r -a modeList <<<"$modes"
for mode in "${modeList[@]}"; do
    [[ $mode == ff || $mode == packets || $mode == flow ]] ||
        { echo "scale.sh: --modes=$modes: expected ff, packets and/or flow (ff,packets,flow)" >&2; exit 1; }
done
[[ ${#points[@]} -gt 0 ]] ||
    points=(gpt3-175b-dp1 gpt3-175b-dp2 gpt3-13b-dp16 gpt3-175b-dp4 gpt3-175b-dp8 gpt3-175b-dp16
            gpt3-175b-dp32 gpt3-175b-dp64 gpt3-175b-dp128 gpt3-175b-dp256)
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
    # Rail leaves of at most 128 servers and 16 uplinks (144 ports, as at 1,024 GPUs: a
    # leaf of more gets no shared buffer): a larger cluster is split into pods of 128
    # servers, joined by 16 spines.
    pods=$((servers > 128 ? servers / 128 : 1))
    spines=$((spines > 16 ? 16 : spines))
    # The reference first, so that the other rows can say how far they are from it.
    for mode in packets ff flow; do
        [[ ,$modes, == *,$mode,* ]] || continue
        dir=$out/$point-$mode
        log=$out/$point-$mode.log
        flag=on
        [[ $mode == packets ]] && flag=off
        cmd=("$sim" --workload="$config" --servers="$servers" --spines="$spines" --pods="$pods" --iterations=1
             --fast-forward="$flag" --progress=0 --plots=0 --out="$dir")
        [[ $mode == flow ]] && cmd+=(--fabric=flow)
        # Beyond 8 pods a spine has more than 64 ports (16 pods: 128), whose reserves and
        # PFC headroom leave no shared buffer in the default 32 MiB (ai-fabric-sim refuses
        # such a cluster in one line): a spine of that size has 128 MiB (Tomahawk-class).
        ((pods > 8)) && cmd+=(--ns3::SharedBufferMmu::BufferSize=134217728)
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
        python3 - "$dir/results.json" "$out/$point-packets/results.json" "$out/$point-ff/results.json" \
            "$point" "$gpus" "$servers" "$spines" "$mode" "$wall" "$peak" >>"$table" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
refs = sys.argv[2:4]
point, gpus, servers, spines, mode, wall, peak = sys.argv[4:11]
events = r["run"]["events"]
fabric = r["fabric"]
chunks = fabric["nvlink_chunks"]
if "link_frames" in fabric:
    hops = fabric["link_frames"]
    simulated = hops - fabric["link_frames_skipped"]
    frames = f"{hops / 1e6:.1f} M | {simulated / 1e6:.1f} M"
    link_bytes = f"{fabric['link_bytes'] / 1e9:.1f} GB"
else:
    frames, link_bytes = " | ", ""  # flow level: no frames
ff = r.get("fast_forward", {})
skipped = f"{100 * ff['skipped_fraction']:.1f} %" if "skipped_fraction" in ff else ""
diff = ""
for ref, name in zip(refs if mode == "flow" else refs[:1], ("packets", "ff")):
    if mode != "packets" and os.path.exists(ref) and not diff:
        t = json.load(open(ref))["simulated_s"]
        diff = f"{100 * (r['simulated_s'] - t) / t:+.3f} %" + ("" if name == "packets" else " (vs ff)")
print(f"| {point} | {gpus} | {servers} | {spines} | {mode} | {float(wall):.1f} | {events / 1e6:.1f} M "
      f"| {frames} | {chunks / 1e6:.1f} M "
      f"| {link_bytes} | {peak} | {r['simulated_s'] * 1e3:.2f} "
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
