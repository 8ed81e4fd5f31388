#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The HPCC paper's own setting (Li et al., SIGCOMM 2019, section 5.1) as a benchmark:
# 320 hosts at 100 Gb/s on a fat-tree with 400 Gb/s between switches, websearch flows at
# 30 % and 50 % load, HPCC and DCQCN with the HPCC simulator's DCQCN (AI 50 Mb/s, HAI
# 100 Mb/s, timer 900 us; ECN 400/1600 KB at 100G, Pmax 0.2, 32 MB buffers are the
# module's defaults). Prints each run's slowdown table, wall time and peak memory.
# Usage (after a Release build in build/): bash bench/hpcc-paper.sh [duration] [loads...]
#   duration: how long flows keep starting (default 10ms); loads default: 0.3 0.5
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
prog=build/cc-compare
[[ -x $prog ]] || { echo "build $prog first (scripts/build-and-test.sh)" >&2; exit 1; }
duration=${1:-10ms}
shift || true
loads=("$@")
[[ ${#loads[@]} -gt 0 ]] || loads=(0.3 0.5)
for load in "${loads[@]}"; do
    out="/tmp/ai-fabric-hpcc-paper-$load"
    log=$(mktemp)
    if ! /usr/bin/time -v "$prog" --topology=hpcc-paper --flowSizes=websearch --load="$load" \
        --duration="$duration" --ccs=ns3::RoceDcqcn,ns3::RoceHpcc --out="$out" >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        exit 1
    fi
    sed -n '/^slowdown (FCT/,/^$/p' "$log"
    grep -E '^ns3::' "$log"
    awk '/Elapsed \(wall/ {print "  wall " $NF} /Maximum resident/ {printf "  peak RSS %.0f MiB\n", $6/1024}' "$log"
    echo "  outputs: $out/"
    rm -f "$log"
done
