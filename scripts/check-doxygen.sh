#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs doxygen over the public headers of the packet-path layers (model/fabric, model/rdma,
# model/nvlink, model/transport) and fails, listing them, when a public member, parameter
# or return value is undocumented. Usage: scripts/check-doxygen.sh [folder...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v doxygen >/dev/null || { echo "error: doxygen not found (apt-get install doxygen)" >&2; exit 1; }
folders=("$@")
if ((${#folders[@]} == 0)); then
    for f in model/fabric model/rdma model/ina model/nvlink model/transport; do
        [[ -d $f ]] && folders+=("$f")
    done
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
inputs=$(find "${folders[@]}" -name '*.h' ! -name 'ai-fabric-compat.h' | sort | tr '\n' ' ')
# doxygen checks free functions only in a documented namespace: document ns3 here.
printf '/** \\namespace ns3\n * \\brief ns-3.\n */\nnamespace ns3 {}\n' >"$out/ns3-namespace.h"
{
    echo "INPUT = $inputs $out/ns3-namespace.h"
    echo "OUTPUT_DIRECTORY = $out"
    # doxygen 1.9 checks \param and \return only while generating output.
    echo "GENERATE_HTML = YES"
    echo "HAVE_DOT = NO"
    echo "GENERATE_LATEX = NO"
    echo "EXTRACT_ALL = NO"
    echo "EXTRACT_PRIVATE = NO"
    echo "EXTRACT_STATIC = YES"
    echo "HIDE_UNDOC_MEMBERS = NO"
    echo "WARN_IF_UNDOCUMENTED = YES"
    echo "WARN_IF_DOC_ERROR = YES"
    echo "WARN_NO_PARAMDOC = YES"
    echo "WARN_LOGFILE = $out/warnings.txt"
    echo "QUIET = YES"
    echo "ENABLE_PREPROCESSING = YES"
    echo "MACRO_EXPANSION = YES"
    echo "PREDEFINED = NS3_LOG_ENABLE"
} >"$out/Doxyfile"
doxygen "$out/Doxyfile" >/dev/null 2>&1 || true
# Overrides of ns-3 base-class members (Header::Serialize, NetDevice::Send, ...) are
# documented by their base class, which is outside this input.
grep -v 'override (function)' "$out/warnings.txt" >"$out/kept.txt" || true
if [[ -s $out/kept.txt ]]; then
    sed "s|$PWD/||" "$out/kept.txt"
    echo "doxygen: $(grep -c 'warning:' "$out/kept.txt") warnings in ${folders[*]}" >&2
    exit 1
fi
echo "doxygen: every public member of ${folders[*]} is documented"
