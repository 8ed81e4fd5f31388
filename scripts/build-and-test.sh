#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build ai-fabric against the installed ns-3 and run every test (the README's second
# command). Runs from any working directory; the build goes to <repo>/build. Release
# build with NS_ASSERT compiled in and NS_LOG compiled out; warnings are errors in CI
# (CI=true).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
WERROR=OFF
[[ "${CI:-}" == true ]] && WERROR=ON

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DAI_FABRIC_ENABLE_ASSERTS=ON \
    -DAI_FABRIC_WERROR="$WERROR"
cmake --build build -j2
ctest --test-dir build --output-on-failure -j2
