#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# "auto" against every algorithm run by name, with collective-perf on the dgx carrier:
# all-reduce, reduce-scatter, all-gather, broadcast and all-to-all at 8 KiB, 64 KiB,
# 1 MiB, 16 MiB, 256 MiB and 1 GiB, on 1 x 8 H100, 2 x 8 H100 (8 x 400G NICs per server)
# and 1 x 8 A100. Prints, per point, auto's time and choice, the best named algorithm and
# its time, auto/best, and auto's busbw; then whether auto is within 5 % of the best
# everywhere and whether its busbw never drops more than 5 % from one size to the next.
#
#   bash bench/auto-sweep.sh [build-dir] > sweep.txt     (about 5 minutes on two cores)
set -euo pipefail
BUILD="${1:-$(dirname "${BASH_SOURCE[0]}")/../build}"
PERF="$BUILD/collective-perf"
[ -x "$PERF" ] || { echo "auto-sweep: $PERF not built" >&2; exit 1; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

SIZES="8K 64K 1M 16M 256M 1G"
COLLECTIVES="all-reduce reduce-scatter all-gather broadcast all-to-all"
ALGORITHMS="auto ring rail-ring tree halving-doubling direct hierarchical nvls pat"
SHAPES="1:8:H100 2:8:H100 1:8:A100"

for shape in $SHAPES; do
    IFS=: read -r servers gpus gpu <<<"$shape"
    ranks=$((servers * gpus))
    for coll in $COLLECTIVES; do
        for algo in $ALGORITHMS; do
            for size in $SIZES; do
                # Algorithms that do not apply to this collective or shape are refused
                # with exit status 1 and skipped.
                "$PERF" --transport=dgx --servers="$servers" --ranks="$ranks" --nvlink="$gpu" \
                    --collective="$coll" --algorithm="$algo" --minBytes="$size" \
                    --maxBytes="$size" --csv="$WORK/row.csv" >/dev/null 2>&1 || continue
                tail -n +2 "$WORK/row.csv" | sed "s/^/${servers}x${gpus}-${gpu},/" >>"$WORK/all.csv"
            done
        done
    done
done

# shape,collective,requested,algorithm,transport,ranks,size_bytes,count,time_us,algbw,busbw
# (rows arrive sorted by shape, collective and size; plain POSIX awk)
sort -t, -k1,1 -k2,2 -k7,7n "$WORK/all.csv" | awk -F, '
{
    key = $1 "," $2 "," $7
    if (!(key in seen)) { seen[key] = 1; order[++n] = key }
    if ($3 == "auto") { autoT[key] = $9; autoA[key] = $4; autoB[key] = $11 }
    else if (!(key in bestT) || $9 + 0 < bestT[key] + 0) { bestT[key] = $9; bestA[key] = $3 }
}
END {
    printf "%-11s %-15s %11s %10s %-17s %10s %-17s %7s %8s\n", "shape", "collective", "bytes",
        "auto (us)", "auto chose", "best (us)", "best", "ratio", "busbw"
    worst = 0; drops = 0
    for (i = 1; i <= n; ++i) {
        k = order[i]; split(k, f, ",")
        r = autoT[k] / bestT[k]
        if (r > worst) worst = r
        printf "%-11s %-15s %11d %10.1f %-17s %10.1f %-17s %7.3f %8.2f\n", f[1], f[2], f[3],
            autoT[k], autoA[k], bestT[k], bestA[k], r, autoB[k]
        series = f[1] "," f[2]
        if ((series in lastB) && autoB[k] < 0.95 * lastB[series]) {
            drops++; printf "  busbw drops from %.2f to %.2f\n", lastB[series], autoB[k]
        }
        lastB[series] = autoB[k]
    }
    printf "\nworst auto/best: %.3f (requirement <= 1.05); busbw drops > 5 %%: %d\n", worst, drops
}'
