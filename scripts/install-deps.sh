#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The one place that lists what ai-fabric needs from Debian 12 and installs it.
# Used by .ci/run and scripts/quick-start.sh; run it directly or source it and call
# ai_fabric_install_deps. Installs nothing when every package is already there.

AI_FABRIC_PACKAGES=(
    # ns-3 3.37 and what its exported CMake targets reference
    ns3 libns3-dev libgsl-dev libsqlite3-dev libxml2-dev libpython3.11-dev
    # libraries and test framework; gperftools' tcmalloc is the programs' allocator
    nlohmann-json3-dev libboost-dev libgtest-dev libgoogle-perftools-dev
    # toolchain
    cmake g++ make python3
    # tools: pcap decoding in tests, plots, the API documentation check
    tshark gnuplot-nox doxygen
)

# Prints the packages of AI_FABRIC_PACKAGES that are not installed, one a line.
ai_fabric_missing_packages()
{
    local pkg status
    for pkg in "${AI_FABRIC_PACKAGES[@]}"; do
        status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
        [[ "$status" == installed ]] || echo "$pkg"
    done
}

ai_fabric_install_deps()
{
    local -a missing sudo=()
    mapfile -t missing < <(ai_fabric_missing_packages)
    if ((${#missing[@]} == 0)); then
        echo "All ${#AI_FABRIC_PACKAGES[@]} packages already installed; skipping apt."
        return 0
    fi
    echo "Missing packages: ${missing[*]}"
    if ((EUID != 0)); then
        if ! command -v sudo >/dev/null 2>&1; then
            echo "error: not root and no sudo; install as root: apt-get install ${missing[*]}" >&2
            return 1
        fi
        sudo=(sudo)
    fi
    # tshark asks whether non-root users may capture; answer "no" before it asks.
    echo 'wireshark-common wireshark-common/install-setuid boolean false' |
        "${sudo[@]}" debconf-set-selections
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y --no-install-recommends "${missing[@]}" </dev/null
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    set -euo pipefail
    ai_fabric_install_deps
fi
