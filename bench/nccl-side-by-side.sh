#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Published nccl-tests results beside ours and beside NCCL's own tuning model: for every
# source of test/data/nccl-tests-published.csv, collective-perf on the dgx carrier (the
# source's GPU, 400G NICs) at every published size, with the algorithm the source forced
# (NCCL_ALGO=RING: --algorithm=ring; NVLS: nvls) or auto, and --ncclModel; then again
# with --asNccl (ours running the algorithm and protocol NCCL's model picks). Prints per
# size: the published time; ours, our choice and ours/published - 1; ours as NCCL picks and
# /published - 1; NCCL's model's time, its choice and model/published - 1.
#
#   bash bench/nccl-side-by-side.sh [build-dir] > side-by-side.txt   (about 15 minutes)
set -euo pipefail
HERE="$(dirname "${BASH_SOURCE[0]}")"
BUILD="${1:-$HERE/../build}"
PERF="$BUILD/collective-perf"
DATA="$HERE/../test/data/nccl-tests-published.csv"
[ -x "$PERF" ] || { echo "nccl-side-by-side: $PERF not built" >&2; exit 1; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

grep -v '^#' "$DATA" | tail -n +2 | cut -d, -f1-6 | sort -u | while IFS=, read -r source coll servers gpus gpu algo; do
    ranks=$((servers * gpus))
    case "$algo" in
    RING) ours=ring ;;
    NVLS) ours=nvls ;;
    *) ours=auto ;;
    esac
    grep "^$source," "$DATA" | cut -d, -f7,8 | sort -t, -k1,1n >"$WORK/published.csv"
    min=$(head -1 "$WORK/published.csv" | cut -d, -f1)
    max=$(tail -1 "$WORK/published.csv" | cut -d, -f1)
    "$PERF" --transport=dgx --servers="$servers" --ranks="$ranks" --nvlink="$gpu" \
        --collective="$coll" --algorithm="$ours" --minBytes="$min" --maxBytes="$max" \
        --ncclModel --csv="$WORK/ours.csv" >/dev/null
    "$PERF" --transport=dgx --servers="$servers" --ranks="$ranks" --nvlink="$gpu" \
        --collective="$coll" --algorithm="$ours" --minBytes="$min" --maxBytes="$max" \
        --asNccl --csv="$WORK/as-nccl.csv" >/dev/null
    echo "# $source: $coll on $servers x $gpus $gpu, published NCCL_ALGO $algo; ours --algorithm=$ours"
    printf '%12s %10s | %10s %-22s %7s | %10s %-20s %7s | %10s %-16s %7s\n' size published \
        ours choice diff as_nccl runs diff nccl_model choice diff
    # the CSVs: collective,requested,algorithm,protocol,transport,ranks,size_bytes,count,
    # time_us,algbw,busbw,nccl_model_algorithm,nccl_model_protocol,nccl_model_time_us
    awk -F, 'FILENAME == ARGV[1] { pub[$1] = $2; next }
             FILENAME == ARGV[2] { if (FNR > 1) { as[$7] = $9; asAlgo[$7] = $3 "/" $4 }; next }
             FNR > 1 && ($7 in pub) {
                 p = pub[$7]; nccl = ($14 == "" ? -1 : $14)
                 printf "%12.0f %10.1f | %10.1f %-22s %+6.1f%% | %10.1f %-20s %+6.1f%% | %10.1f %-16s %+6.1f%%\n",
                        $7, p, $9, $3 "/" $4, 100 * ($9 / p - 1),
                        as[$7], asAlgo[$7], 100 * (as[$7] / p - 1),
                        nccl, $12 "/" $13, nccl < 0 ? 0 : 100 * (nccl / p - 1)
             }' "$WORK/published.csv" "$WORK/as-nccl.csv" "$WORK/ours.csv"
    echo
done
