#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# ai-fabric-sim --fast-forward=check on the built-in default scenario: both runs, the
# comparison table with the iteration and every collective group within its bound, exit 0;
# and --fast-forward=bad is one line naming the option, exit 1.
# Usage: check-fast-forward-check.sh <ai-fabric-sim> <output folder>
set -uo pipefail
program=$1
out=$2
rm -rf "$out"
fail()
{
    echo "FAIL: $*" >&2
    exit 1
}
log=$("$program" --fast-forward=check --progress=0 --plots=0 --out="$out" 2>&1)
status=$?
echo "$log"
((status == 0)) || fail "ai-fabric-sim --fast-forward=check exited with status $status"
grep -q 'the packet reference first' <<<"$log" || fail "no reference run announced"
grep -Eq '^ +iteration 0 \(ms\) +45\.24[23][0-9]* +45\.24[23][0-9]* ' <<<"$log" ||
    fail "no iteration row 45.243 (reference) against 45.243 (fast-forward)"
rows=$(grep -cE '^  [a-z-]+ [a-z0-9.]+ mean \(us\) ' <<<"$log")
((rows == 10)) || fail "expected 10 collective rows (all-reduce dp0 to dp7, tp0, tp1), got $rows"
grep -q 'OUTSIDE' <<<"$log" && fail "a figure is outside its bound"
[[ -s $out/results.json ]] || fail "the fast-forwarded run wrote no results.json"
bad=$("$program" --fast-forward=yes 2>&1)
status=$?
((status == 1)) || fail "--fast-forward=yes exited with status $status, expected 1"
[[ $(wc -l <<<"$bad") -eq 1 && $bad == *"--fast-forward=yes: expected on, off or check"* ]] ||
    fail "--fast-forward=yes: expected one line naming the option, got: $bad"
echo "fast-forward check: both runs within their bounds"
