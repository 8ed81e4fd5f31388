#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The distributed packet fabric's scaling: roce-distributed on 128 hosts (16 leaves of 8,
# 8 spines, 100G, 1 us cables, every host writing 16 MiB one leaf over and the hosts of
# leaves 1.. 1 MiB to host 0; ordered arrivals) without MPI and under
# `mpirun -np N ... --distributed` for N in RANKS, in an ns-3 tree configured with
# --enable-mpi (MPI=1 scripts/check-in-tree.sh makes one). Prints, per run, the slowest
# rank's wall time, every rank's events and frames to other ranks, and whether its output
# equals the run without MPI. The doc's table (fabric,
# "Across ranks") came from this.
#
# Usage: bash bench/distributed.sh NS3_TREE [EXTRA roce-distributed OPTIONS]
# Environment: RANKS (default "1 2 4").
set -euo pipefail

NS3_DIR=${1:?usage: $0 NS3_TREE [options] (an ns-3 tree configured with --enable-mpi)}
shift
RANKS=${RANKS:-1 2 4}
program=$(find "$NS3_DIR/build" -type f -perm -u+x -name 'ns3*-roce-distributed*' | head -n1)
[[ -n "$program" ]] || { echo "distributed.sh: no roce-distributed under $NS3_DIR/build" >&2; exit 1; }
MPIRUN=(mpirun --oversubscribe)
((EUID != 0)) || MPIRUN+=(--allow-run-as-root)
args=(--leaves=16 --spines=8 --hostsPerLeaf=8 --bytes=16M --incastBytes=1M "$@")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run()
{
    local name=$1
    shift
    "$@" --out="$out/$name.txt" >"$out/$name.log"
    local wall
    wall=$(sed -nE 's/.*wall ([0-9.]+) s.*/\1/p' "$out/$name.log" | sort -g | tail -n1)
    local same="the reference"
    if [[ $name != seq ]]; then
        cmp -s "$out/seq.txt" "$out/$name.txt" && same="identical" || same="DIFFERENT"
    fi
    echo "$name: wall ${wall} s (slowest rank), output $same"
    grep '^rank' "$out/$name.log" | sed 's/^/    /'
}

echo "roce-distributed ${args[*]}"
run seq "$program" "${args[@]}"
for n in $RANKS; do
    run "mpi$n" "${MPIRUN[@]}" -np "$n" "$program" "${args[@]}" --distributed
done
