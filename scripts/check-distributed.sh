#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The distributed fabric's check: in an ns-3 tree configured with --enable-mpi (made by
# `MPI=1 scripts/check-in-tree.sh`, which runs this at its end), run roce-distributed
# without MPI and under `mpirun -np 1, 2, 4 ... --distributed`, for several fabrics, and
# require that every run's --out file (every flow's completion times to the picosecond
# and packet counts, every port's frames, bytes and PFC pauses, every switch's drops,
# marks and largest queue) is byte for byte the run without MPI's; and that with 2 and 4
# ranks frames and PFC pauses did cross ranks; and that without ordered arrivals
# (--orderArrivals=false) a run on two ranks differs from the run without MPI, so the
# comparison can fail. Prints each
# rank's events, frames to other ranks and wall time.
#
# Usage: scripts/check-distributed.sh NS3_TREE
# Environment: RANKS (default "1 2 4").
set -euo pipefail

NS3_DIR=${1:?usage: $0 NS3_TREE (an ns-3 tree configured with --enable-mpi)}
RANKS=${RANKS:-1 2 4}
die()
{
    echo "error: $*" >&2
    exit 1
}
# The sum over the ranks' lines of the figure after "$1 " in log $2.
sum_of()
{
    sed -nE "s/.*$1 ([0-9]+).*/\\1/p" "$2" | awk '{ s += $1 } END { print s + 0 }'
}
program=$(find "$NS3_DIR/build" -type f -perm -u+x -name 'ns3*-roce-distributed*' | head -n1)
[[ -n "$program" ]] || die "no roce-distributed program under $NS3_DIR/build (--enable-examples?)"
grep -q '^NS3_MPI:BOOL=ON' "$NS3_DIR/cmake-cache/CMakeCache.txt" 2>/dev/null ||
    die "$NS3_DIR is not configured with --enable-mpi"
command -v mpirun >/dev/null || die "mpirun not found (Debian: openmpi-bin)"
# Open MPI refuses root unless told, and more ranks than cores unless told.
MPIRUN=(mpirun --oversubscribe)
((EUID != 0)) || MPIRUN+=(--allow-run-as-root)

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Fabrics: DCQCN with an incast that pauses the spines; no congestion control (more
# pauses, deeper queues); HPCC (telemetry stamped by switches on both ranks of a path);
# 8 leaves on 4 ranks with 4 spines; 2 us cables (RoceHelper::Link gives the cables
# between ranks the helper's Delay, and the lookahead follows); a rail-optimized cluster
# of 4 pods of 4 servers x 2 rails, spread by pod.
cases=(
    "dcqcn|"
    "none|--cc=none --incastBytes=4M"
    "hpcc|--cc=ns3::RoceHpcc"
    "wide|--leaves=8 --spines=4 --hostsPerLeaf=2 --bytes=2M"
    "cable2us|--delay=2us --incastBytes=2M"
    "rail|--rails=2 --bytes=512K --incastBytes=1M"
)
failures=0
for entry in "${cases[@]}"; do
    name=${entry%%|*}
    read -r -a args <<<"${entry#*|}"
    "$program" "${args[@]}" --out="$out/$name-seq.txt" >"$out/$name-seq.log"
    for n in $RANKS; do
        "${MPIRUN[@]}" -np "$n" "$program" "${args[@]}" --distributed \
            --out="$out/$name-$n.txt" >"$out/$name-$n.log"
        if cmp -s "$out/$name-seq.txt" "$out/$name-$n.txt"; then
            verdict="identical"
        else
            verdict="DIFFERENT"
            failures=$((failures + 1))
            diff "$out/$name-seq.txt" "$out/$name-$n.txt" | head -n 10 || true
        fi
        frames=$(sum_of 'frames to other ranks' "$out/$name-$n.log")
        pauses=$(sum_of 'PFC pauses from other ranks' "$out/$name-$n.log")
        echo "$name, $n rank(s): $verdict to the run without MPI ($(wc -l <"$out/$name-$n.txt") lines); frames across ranks $frames, PFC pauses across ranks $pauses"
        sed 's/^/    /' "$out/$name-$n.log" | grep rank
        if ((n > 1)) && ((frames == 0)); then
            echo "    no frame crossed ranks"
            failures=$((failures + 1))
        fi
    done
done
# The incast pauses the spines: with more than one rank, pauses cross (checked once, on
# the default fabric, where the stats above show it).
for n in $RANKS; do
    if ((n > 1)); then
        pauses=$(sum_of 'PFC pauses from other ranks' "$out/dcqcn-$n.log")
        ((pauses > 0)) || { echo "dcqcn, $n ranks: no PFC pause crossed ranks"; failures=$((failures + 1)); }
    fi
done
# Without ordered arrivals a frame from another rank is scheduled later than in the run
# without MPI, and simultaneous frames can enter a switch in the other order: the check
# must see that (else it could not fail).
"$program" --orderArrivals=false --out="$out/unordered-seq.txt" >/dev/null
"${MPIRUN[@]}" -np 2 "$program" --orderArrivals=false --distributed \
    --out="$out/unordered-2.txt" >/dev/null
if cmp -s "$out/unordered-seq.txt" "$out/unordered-2.txt"; then
    echo "unordered arrivals, 2 ranks: identical to the run without MPI, expected a difference"
    failures=$((failures + 1))
else
    echo "unordered arrivals, 2 ranks: $(diff "$out/unordered-seq.txt" "$out/unordered-2.txt" |
        grep -c '^<') of $(wc -l <"$out/unordered-seq.txt") lines differ from the run without MPI (expected)"
fi
((failures == 0)) || die "$failures distributed check(s) failed"
echo "Distributed check passed: every run identical to the run without MPI."
