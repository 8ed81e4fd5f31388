#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Published nccl-tests results beside ours and beside NCCL's own tuning model: for every
# source of test/data/nccl-tests-h100.csv, collective-perf on the dgx carrier (H100, 400G
# NICs) at every published size, with the algorithm the source forced (NCCL_ALGO=RING:
# --algorithm=ring) or auto, and --ncclModel. Prints per size: the published time, ours,
# ours/published - 1, NCCL's model's time and its choice, model/published - 1.
#
#   bash bench/nccl-side-by-side.sh [build-dir] > side-by-side.txt   (about 10 minutes)
set -euo pipefail
HERE="$(dirname "${BASH_SOURCE[0]}")"
BUILD="${1:-$HERE/../build}"
PERF="$BUILD/collective-perf"
DATA="$HERE/../test/data/nccl-tests-h100.csv"
[ -x "$PERF" ] || { echo "nccl-side-by-side: $PERF not built" >&2; exit 1; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

grep -v '^#' "$DATA" | tail -n +2 | cut -d, -f1-5 | sort -u | while IFS=, read -r source coll servers gpus algo; do
    ranks=$((servers * gpus))
    case "$algo" in
    RING) ours=ring ;;
    *) ours=auto ;;
    esac
    grep "^$source," "$DATA" | cut -d, -f6,7 | sort -t, -k1,1n >"$WORK/published.csv"
    min=$(head -1 "$WORK/published.csv" | cut -d, -f1)
    max=$(tail -1 "$WORK/published.csv" | cut -d, -f1)
    "$PERF" --transport=dgx --servers="$servers" --ranks="$ranks" --nvlink=H100 \
        --collective="$coll" --algorithm="$ours" --minBytes="$min" --maxBytes="$max" \
        --ncclModel --csv="$WORK/ours.csv" >/dev/null
    echo "# $source: $coll on $servers x $gpus H100, published NCCL_ALGO $algo; ours --algorithm=$ours"
    printf '%12s %12s %12s %8s  %-22s %12s %-16s %8s\n' size published ours diff ours_algo nccl_model nccl_choice diff
    # ours.csv: collective,requested,algorithm,protocol,transport,ranks,size_bytes,count,
    # time_us,algbw,busbw,nccl_model_algorithm,nccl_model_protocol,nccl_model_time_us
    awk -F, 'NR == FNR { pub[$1] = $2; next }
             FNR > 1 && ($7 in pub) {
                 p = pub[$7]; nccl = ($14 == "" ? -1 : $14)
                 printf "%12.0f %12.1f %12.1f %+7.1f%%  %-22s %12.1f %-16s %+7.1f%%\n", $7, p, $9,
                        100 * ($9 / p - 1), $3 "/" $4, nccl, $12 "/" $13,
                        nccl < 0 ? 0 : 100 * (nccl / p - 1)
             }' "$WORK/published.csv" "$WORK/ours.csv"
    echo
done
