#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Whole-program benchmark of the main program: wall time, events per second and peak
# memory of ai-fabric-sim on the default scenario and on the shipped GPT-3 13B scenario,
# as users run it (fast-forward on, the default) or as the packet reference
# (--fast-forward=off).
# Usage (after a Release build in build/):
#   bash bench/training-bench.sh [--fast-forward=on|off] [scenario.json ...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
sim=build/ai-fabric-sim
[[ -x $sim ]] || { echo "build $sim first (scripts/build-and-test.sh)" >&2; exit 1; }
mode=on
scenarios=()
for arg in "$@"; do
    case $arg in
    --fast-forward=on | --fast-forward=off) mode=${arg#*=} ;;
    --*) echo "training-bench.sh: $arg: unknown option (--fast-forward=on or off)" >&2; exit 1 ;;
    *) scenarios+=("$arg") ;;
    esac
done
[[ ${#scenarios[@]} -gt 0 ]] || scenarios=(default traces/scenarios/gpt3-13b-2x8-h100.json)
echo "fast-forward: $mode"
printf '%-45s %12s %10s %12s %12s %10s\n' scenario "simulated" "wall" "events" "events/s" "peak RSS"
for s in "${scenarios[@]}"; do
    args=(--progress=0 --plots=0 --fast-forward="$mode" --out="/tmp/ai-fabric-bench-$(basename "$s" .json)")
    [[ $s == default ]] || args+=(--scenario="$s")
    log=$(mktemp)
    /usr/bin/time -v "$sim" "${args[@]}" >"$log" 2>&1
    line=$(grep 'run      :' "$log")
    simulated=$(sed -E 's/.*simulated ([0-9.]+ ms).*/\1/' <<<"$line")
    wall=$(sed -E 's/.* in ([0-9.]+) s wall.*/\1/' <<<"$line")
    events=$(sed -E 's/.*\(([0-9.]+) M events.*/\1/' <<<"$line")
    rss=$(awk '/Maximum resident/ {printf "%.0f MiB", $6/1024}' "$log")
    rate=$(awk -v e="$events" -v w="$wall" 'BEGIN {printf "%.2f M", e / w}')
    printf '%-45s %12s %9ss %10s M %12s %10s\n' "$(basename "$s")" "$simulated" "$wall" "$events" "$rate" "$rss"
    rm -f "$log"
done
