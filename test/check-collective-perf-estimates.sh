#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# collective-perf --simulate=false: per size, the plan that would run and the cost model's
# estimate of it, without simulating. On 8 x 8 H100 (400G, DCQCN) at 128 and 256 MiB: the
# rows say they are estimates (the header line, the CSV's source column), each row's
# algorithm and time are the first (fastest) of what --estimates lists for that size (what
# auto weighed: the same carrier, rank map and NET overhead), the 256 MiB row is the figure
# the collective layer's doc quotes for auto's estimate there (rail-ring/LL128 1638.3 us;
# nvls-tree/Simple, which DCQCN's cuts slow there, after it), no fabric line (nothing ran);
# a named algorithm's row is the estimate --estimates lists for it (nvls-tree/Simple); the
# 2 x 8 all-to-all of 1 GiB, whose NICs take eight senders each, is estimated as without
# congestion control (the DCQCN term acts on incasts of at most four) and auto keeps Simple;
# and --simulate=maybe is one line naming the option, exit 1.
# Usage: check-collective-perf-estimates.sh <collective-perf> <output folder>
set -uo pipefail
program=$1
out=$2
rm -rf "$out"
mkdir -p "$out"
fail()
{
    echo "FAIL: $*" >&2
    exit 1
}
shape=(--transport=dgx --servers=8 --ranks=64 --collective=all-reduce)
log=$("$program" "${shape[@]}" --minBytes=128M --maxBytes=256M --simulate=false --estimates \
    --csv="$out/auto.csv" 2>&1)
status=$?
echo "$log"
((status == 0)) || fail "collective-perf --simulate=false exited with status $status"
grep -q '^# not simulated (--simulate=false)' <<<"$log" || fail "no line saying the rows are estimates"
grep -q '^# Fabric:' <<<"$log" && fail "a fabric line, though nothing was simulated"
# Each row, then its estimates line: the row's algorithm/protocol and time are the first.
pairs=$(awk '/^ +[0-9]+ / { algo = $NF; t = $6; next }
             /^#   estimates:/ { print algo, t, $3, $4 }' <<<"$log")
[[ $(wc -l <<<"$pairs") -eq 2 ]] || fail "expected 2 rows with estimates, got: $pairs"
while read -r algo t first firstTime; do
    [[ $algo == "$first" ]] || fail "the row ran $algo, the fastest estimate is $first"
    [[ $t == "$firstTime" ]] || fail "the row's time $t is not its estimate $firstTime"
done <<<"$pairs"
grep -Eq '^ +268435456 .* 1638\.3 .* rail-ring/LL128$' <<<"$log" ||
    fail "256 MiB: expected auto's rail-ring/LL128 estimated at 1638.3 us"
rows=$(tail -n +2 "$out/auto.csv" | awk -F, '$NF == "estimate"' | wc -l)
((rows == 2)) || fail "expected 2 CSV rows with source estimate, got $rows"
# A named algorithm: its own plan's estimate (what --estimates lists for it at 256 MiB).
named=$("$program" "${shape[@]}" --minBytes=256M --maxBytes=256M --simulate=false \
    --algorithm=nvls-tree --protocol=Simple --csv=none 2>&1)
listed=$(awk '/^ +268435456 / { row = 1; next }
               row && /^#   estimates:/ { for (i = 3; i < NF; i += 2) if ($i == "nvls-tree/Simple") print $(i + 1); exit }' <<<"$log")
[[ -n $listed ]] || fail "--estimates at 256 MiB: no nvls-tree/Simple"
grep -Eq "^ +268435456 .* ${listed//./\\.} .* nvls-tree/Simple\$" <<<"$named" ||
    fail "nvls-tree/Simple at 256 MiB: expected the estimate --estimates lists for it ($listed us); got: $named"
# Into ports of many senders the DCQCN term does not act (MAX_INPUTS): the 2 x 8 H100
# all-to-all of 1 GiB (eight senders into each NIC) is estimated as without congestion
# control, within 1 %, and auto keeps Simple (the packet model: Simple 11052.6 us).
a2a=(--transport=dgx --servers=2 --ranks=16 --collective=all-to-all --minBytes=1G --maxBytes=1G
    --simulate=false --csv=none)
with=$("$program" "${a2a[@]}" 2>&1 | awk '/^ +1073741824 / { print $6, $NF }')
without=$("$program" "${a2a[@]}" --cc=none 2>&1 | awk '/^ +1073741824 / { print $6 }')
read -r withTime withAlgo <<<"$with"
[[ $withAlgo == direct/Simple ]] || fail "2 x 8 all-to-all 1 GiB: auto took '$withAlgo', expected direct/Simple"
awk -v a="$withTime" -v b="$without" 'BEGIN { exit !(b > 0 && a / b < 1.01 && a / b > 0.99) }' ||
    fail "2 x 8 all-to-all 1 GiB: estimate $withTime us with DCQCN, $without without (expected within 1 %)"
bad=$("$program" --simulate=maybe 2>&1)
status=$?
((status == 1)) || fail "--simulate=maybe exited with status $status, expected 1"
[[ $(wc -l <<<"$bad") -eq 1 ]] || fail "--simulate=maybe: expected one line, got: $bad"
grep -q 'simulate' <<<"$bad" || fail "--simulate=maybe: the line does not name the option: $bad"
echo "PASS"
