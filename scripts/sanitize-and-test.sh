#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build ai-fabric with AddressSanitizer and UndefinedBehaviorSanitizer
# (-DAI_FABRIC_SANITIZE=ON: the library, every test, program and the benchmark) in
# <repo>/build-asan and run the whole suite with leak detection. NS_LOG is compiled in
# (sanitized builds default to AI_FABRIC_ENABLE_LOGS=ON), so the log suites run too.
# ns-3 itself is Debian's uninstrumented library. Runs from any working directory;
# extra arguments go to ctest (e.g. -R wire-format).
#
# Environment: JOBS  parallel build and test jobs (default 2)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
JOBS=${JOBS:-2}
WERROR=OFF
[[ "${CI:-}" == true ]] && WERROR=ON

# -O1 -g1: line tables for the reports, at a fraction of -O2 -g's compile time.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
    -DAI_FABRIC_ENABLE_ASSERTS=ON \
    -DAI_FABRIC_SANITIZE=ON -DAI_FABRIC_WERROR="$WERROR"
cmake --build build-asan -j"$JOBS"
ctest --test-dir build-asan --output-on-failure -j"$JOBS" "$@"
