#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The README's first command: install the Debian 12 packages, build, and run the main
# program on its built-in default scenario. Runs from any working directory.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/install-deps.sh

echo "== Installing dependencies"
ai_fabric_install_deps

echo "== Building (Release)"
# Same configuration as scripts/build-and-test.sh, so that command reuses this build.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DAI_FABRIC_ENABLE_ASSERTS=ON
# Only what runs below; scripts/build-and-test.sh builds the rest (tests, benchmark).
cmake --build build -j2 --target ai-fabric-sim

echo "== Running build/ai-fabric-sim on its built-in default scenario"
build/ai-fabric-sim --out=ai-fabric-results
