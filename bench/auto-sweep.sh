#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# "auto" against every algorithm and protocol run by name, with collective-perf: per shape,
# collective and size, auto's time and choice, the fastest algorithm/protocol run by name
# and its time, auto/best and auto's busbw; then whether auto is within 5 % of the best
# everywhere and whether its busbw never drops more than 5 % from one size to the next.
#
# Shapes (SHAPES, space-separated):
#   S:G:GPU       dgx carrier: S servers of G GPUs (preset GPU), 400G NIC per GPU
#   rdma:H:O      rdma carrier: H one-GPU hosts, 400G, two leaves, O:1 oversubscribed
#                 spines (O = 1: non-blocking)
# Defaults are issue 22's: 1 x 8 A100, H100, H200 and B200; 2, 4 and 8 x 8 H100; 32 and 64
# hosts at 1:1 and 2:1; all-reduce, reduce-scatter, all-gather, broadcast and all-to-all;
# 8 B to 8 GiB x 8. That is hours of simulation; a subset, e.g.
#   SHAPES="1:8:H100 2:8:H100 rdma:32:2" SIZES="8 4K 256K 16M 1G" \
#     COLLECTIVES="all-reduce all-gather" bash bench/auto-sweep.sh
# takes minutes.
#
# Each point's auto, best (of how many algorithm/protocol pairs run by name, auto's choice
# counted) and ratio go to standard error as it finishes; the table's "runs" column says the
# same, and its last line how many points had auto's choice as their only candidate (their
# ratio, 1.000, compares auto with nothing). RAW=FILE keeps
# every run's CSV row in FILE as it comes (a long sweep stopped early keeps what it did;
# auto's row appears twice, once as auto and once under the name of what it chose).
#
# PRUNE=F (e.g. 0.25) runs by name only what auto weighed (collective-perf --estimates,
# printed with auto's run) and estimated within a fraction F of its fastest: for the
# largest sizes, where each run is minutes of packets. The "best" is then the best of
# those; the estimates are held to 3 to 25 % of the simulation (test collective-cost, on
# small shapes), so to keep the true best F should be about twice the error that applies.
# If auto's own run fails, a pruned point runs nothing.
# Without PRUNE every algorithm and protocol runs by name; either way the one auto chose
# is not run again (its row is auto's: the same plan and seed).
#
# CHOICES=1 simulates nothing: per point, auto's choice and the cost model's estimate of it
# (collective-perf --simulate=false), one line each ("shape collective bytes choice
# estimate_us"; the default grid in about 16 minutes of one core): two such lists, before and after
# a change of the cost model, show which points it moves (only those need simulating).
#
#   bash bench/auto-sweep.sh [build-dir] > sweep.txt
set -euo pipefail
BUILD="${1:-$(dirname "${BASH_SOURCE[0]}")/../build}"
PERF="$BUILD/collective-perf"
[ -x "$PERF" ] || { echo "auto-sweep: $PERF not built" >&2; exit 1; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

SIZES="${SIZES:-8 64 512 4K 32K 256K 2M 16M 128M 1G 8G}"
COLLECTIVES="${COLLECTIVES:-all-reduce reduce-scatter all-gather broadcast all-to-all}"
SHAPES="${SHAPES:-1:8:A100 1:8:H100 1:8:H200 1:8:B200 2:8:H100 4:8:H100 8:8:H100 rdma:32:1 rdma:32:2 rdma:64:1 rdma:64:2}"
ALGORITHMS="ring rail-ring tree halving-doubling direct hierarchical nvls nvls-tree pat"
PROTOCOLS="LL LL128 Simple"

for shape in $SHAPES; do
    IFS=: read -r a b c <<<"$shape"
    if [ "$a" = rdma ]; then
        name="rdma${b}-${c}to1"
        carrier=(--transport=rdma --ranks="$b" --leaves=2 --spines=$((b / 2 / c))
            --oversubscription="$c")
    else
        name="${a}x${b}-${c}"
        carrier=(--transport=dgx --servers="$a" --ranks=$((a * b)) --nvlink="$c")
    fi
    for coll in $COLLECTIVES; do
        for size in $SIZES; do
            if [ -n "${CHOICES:-}" ]; then
                "$PERF" "${carrier[@]}" --collective="$coll" --algorithm=auto --protocol=auto \
                    --minBytes="$size" --maxBytes="$size" --simulate=false \
                    --csv="$WORK/row.csv" >/dev/null 2>&1 || continue
                tail -n +2 "$WORK/row.csv" | awk -F, -v n="$name" \
                    '{ printf "%s %s %s %s/%s %.1f\n", n, $1, $7, $3, $4, $9 }'
                continue
            fi
            runs=()
            # auto first: with --estimates it lists what auto weighed (PRUNE's candidates).
            chose=
            if "$PERF" "${carrier[@]}" --collective="$coll" --algorithm=auto --protocol=auto \
                --minBytes="$size" --maxBytes="$size" --estimates \
                --csv="$WORK/row.csv" >"$WORK/auto.txt" 2>/dev/null; then
                tail -n +2 "$WORK/row.csv" | sed "s/^/${name},/" >>"$WORK/point.csv"
                # What auto ran is that algorithm and protocol run by name (the same plan
                # and seed, the same time): its row counts for it, without a second run.
                chose=$(tail -n +2 "$WORK/row.csv" | awk -F, '{ print $3 " " $4 }')
                tail -n +2 "$WORK/row.csv" | awk -F, -v OFS=, -v n="$name" \
                    '{ $2 = $3; print n, $0 }' >>"$WORK/point.csv"
            fi
            if [ -n "${PRUNE:-}" ]; then
                while read -r algo proto; do runs+=("$algo $proto"); done < <(
                    awk -v f="$PRUNE" '/^#   estimates:/ {
                        min = -1
                        for (i = 3; i < NF; i += 2) if (min < 0 || $(i + 1) + 0 < min) min = $(i + 1)
                        for (i = 3; i < NF; i += 2) if ($(i + 1) + 0 <= (1 + f) * min) {
                            split($i, ap, "/"); print ap[1], ap[2] } }' "$WORK/auto.txt")
            else
                for algo in $ALGORITHMS; do
                    for proto in $PROTOCOLS; do runs+=("$algo $proto"); done
                done
            fi
            for run in "${runs[@]}"; do
                [ "$run" != "$chose" ] || continue
                read -r algo proto <<<"$run"
                # Algorithms and protocols that do not apply to this collective or shape
                # are refused with exit status 1 and skipped.
                "$PERF" "${carrier[@]}" --collective="$coll" --algorithm="$algo" \
                    --protocol="$proto" --minBytes="$size" --maxBytes="$size" \
                    --csv="$WORK/row.csv" >/dev/null 2>&1 || continue
                tail -n +2 "$WORK/row.csv" | sed "s/^/${name},/" >>"$WORK/point.csv"
            done
            [ -s "$WORK/point.csv" ] || continue
            awk -F, '$3 == "auto" { t = $10; a = $4 "/" $5 }
                     $3 != "auto" { ++c }
                     $3 != "auto" && (b == "" || $10 + 0 < b + 0) { b = $10; ba = $4 "/" $5 }
                     END { printf "%s %s %s: auto %.1f us (%s), best %.1f us (%s) of %d, %.3f\n",
                           $1, $2, $8, t, a, b, ba, c, (b > 0 ? t / b : 0) }' \
                "$WORK/point.csv" >&2
            cat "$WORK/point.csv" >>"$WORK/all.csv"
            [ -z "${RAW:-}" ] || cat "$WORK/point.csv" >>"$RAW"
            rm -f "$WORK/point.csv"
        done
    done
done

[ -z "${CHOICES:-}" ] || exit 0

# shape,collective,requested,algorithm,protocol,transport,ranks,size_bytes,count,time_us,
# algbw,busbw,... (rows arrive sorted by shape, collective and size; plain POSIX awk)
sort -t, -k1,1 -k2,2 -k8,8n "$WORK/all.csv" | awk -F, '
{
    key = $1 "," $2 "," $8
    if (!(key in seen)) { seen[key] = 1; order[++n] = key }
    if ($3 == "auto") { autoT[key] = $10; autoA[key] = $4 "/" $5; autoB[key] = $12 }
    else {
        ++named[key]
        if (!(key in bestT) || $10 + 0 < bestT[key] + 0) { bestT[key] = $10; bestA[key] = $4 "/" $5 }
    }
}
END {
    printf "%-13s %-15s %11s %10s %-24s %10s %-24s %7s %8s %5s\n", "shape", "collective", "bytes",
        "auto (us)", "auto chose", "best (us)", "best", "ratio", "busbw", "runs"
    worst = 0; drops = 0; alone = 0
    for (i = 1; i <= n; ++i) {
        k = order[i]; split(k, f, ",")
        r = autoT[k] / bestT[k]
        if (r > worst) worst = r
        if (named[k] < 2) alone++
        printf "%-13s %-15s %11.0f %10.1f %-24s %10.1f %-24s %7.3f %8.2f %5d\n", f[1], f[2], f[3],
            autoT[k], autoA[k], bestT[k], bestA[k], r, autoB[k], named[k]
        series = f[1] "," f[2]
        if ((series in lastB) && autoB[k] < 0.95 * lastB[series]) {
            drops++; printf "  busbw drops from %.2f to %.2f\n", lastB[series], autoB[k]
        }
        lastB[series] = autoB[k]
    }
    printf "\nworst auto/best: %.3f (requirement <= 1.05); busbw drops > 5 %%: %d\n", worst, drops
    printf "points where auto'"'"'s choice was the only one run (pruned or the only one that applies): %d of %d\n", alone, n
}'
