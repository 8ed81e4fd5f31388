#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The main program as users start it (README quick start): the built-in default scenario
# must exit 0, print the documented iteration (45.243 ms: 19.796 compute, 25.447 exposed
# communication, no drops; fast-forwarded, as by default) and write every report and plot it lists.
# The summary and results.json name the allocator the build linked in (tcmalloc; glibc
# with -DAI_FABRIC_ALLOCATOR=system; asan in sanitized builds).
# Usage: check-default-scenario.sh <ai-fabric-sim> <output folder> [allocator]
set -uo pipefail
program=$1
out=$2
allocator=${3:-}
rm -rf "$out"
log=$("$program" --progress=0 --out="$out" 2>&1)
status=$?
echo "$log"
fail()
{
    echo "FAIL: $*" >&2
    exit 1
}
((status == 0)) || fail "ai-fabric-sim exited with status $status"
grep -Eq '^ +0 +45\.243 +19\.796 +25\.447 +0\.000$' <<<"$log" ||
    fail "iteration line is not '0  45.243  19.796  25.447  0.000' (ms)"
grep -q 'fast-fwd : on, 98.2 % of the RDMA bytes skipped' <<<"$log" ||
    fail "the summary does not say that 98.2 % of the RDMA bytes were fast-forwarded"
grep -q 'work     : 0.06 M packet-hops simulated, 3.37 M skipped; 0.88 M NVLink chunks (0.00 M skipped, 0.88 M replayed)' <<<"$log" ||
    fail "the summary's work line is not the frames and NVLink chunks of the default scenario"
# Its 768 tensor-parallel NVLS all-reduces: one recorded on each server, the rest replayed.
grep -q 'NVSwitch calls: 766 replayed, 2 recorded, 0 overlaps' <<<"$log" ||
    fail "the summary does not say that 766 NVSwitch calls were replayed, 2 recorded"
grep -q 'drops 0' <<<"$log" || fail "the fabric dropped packets"
for f in results.json timeline.json iterations.csv collectives.csv fct.csv pfc.csv links.csv \
    breakdown.png fabric.png; do
    [[ -s $out/$f ]] || fail "$out/$f missing or empty"
done
if [[ -n $allocator ]]; then
    grep -Eq "M events, [^,]+, $allocator\)" <<<"$log" ||
        fail "the summary's run line does not name the allocator $allocator"
    grep -q "\"allocator\": \"$allocator\"" "$out/results.json" ||
        fail "results.json's run.allocator is not $allocator"
fi
echo "default scenario: 45.243 ms iteration, all outputs written"
