#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# On-demand check of the in-tree (contrib) mode: fetch Debian's ns-3.37 source package,
# put this repository's working tree at contrib/ai-fabric, configure with only the
# modules ai-fabric needs (examples and tests on), build, run every ai-fabric TestSuite
# with test.py (the "ai-fabric-smoke" suite and one "ai-fabric-<suite>" per GoogleTest
# suite), print how many ns-3 TestSuites and GoogleTests ran, and run the roce-incast
# example. Fails if no test ran or any failed. Takes about 10 minutes on two cores the
# first time (an already-built tree only rebuilds the module); not part of CI.
#
# With MPI=1 the tree is configured with ns-3's distributed engine (--enable-mpi, Debian's
# Open MPI: packages libopenmpi-dev and openmpi-bin) and the module's distributed tests
# run under mpirun with 1, 2 and 4 ranks (scripts/check-distributed.sh) instead of test.py
# (examples only, no tests: the plain tree runs those); the tree goes to
# /tmp/ai-fabric-intree-mpi by default, so the two configurations never rebuild each other.
#
# Environment:
#   MPI            1: configure with --enable-mpi and run the distributed tests (default 0)
#   WORKDIR        where the source package is fetched and unpacked
#                  (default /tmp/ai-fabric-intree); an unpacked tree there is reused
#   JOBS           parallel build jobs (default: number of cores)
#   DEBIAN_MIRROR  archive to fetch the source from (default: the machine's own apt mirror)
#
# Needs apt (with the Debian archive keyring), python3, cmake, g++ and make; the
# module's own dependencies come from scripts/install-deps.sh.
set -euo pipefail

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MPI=${MPI:-0}
[[ "$MPI" == 0 || "$MPI" == 1 ]] || { echo "error: MPI must be 0 or 1, got '$MPI'" >&2; exit 1; }
if [[ "$MPI" == 1 ]]; then
    WORKDIR=${WORKDIR:-/tmp/ai-fabric-intree-mpi}
else
    WORKDIR=${WORKDIR:-/tmp/ai-fabric-intree}
fi
JOBS=${JOBS:-$(nproc)}
# The machine's own Debian mirror (the first bookworm "URIs:" or "deb" line of its apt
# configuration), unless DEBIAN_MIRROR says otherwise.
system_mirror()
{
    local uri
    uri=$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' |
        grep -v security | head -n1 || true)
    if [[ -z "$uri" ]]; then
        uri=$(grep -hE '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' |
            grep -v security | head -n1 || true)
    fi
    echo "$uri"
}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-$(system_mirror)}
[[ -n "$DEBIAN_MIRROR" ]] || { echo "error: set DEBIAN_MIRROR (no Debian mirror in apt configuration)" >&2; exit 1; }
NS3_VERSION=3.37
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

section()
{
    printf '\n==================== %s (at %ds) ====================\n' "$1" "$SECONDS"
}

die()
{
    echo "error: $*" >&2
    exit 1
}

tools=(apt-get python3 cmake g++ make)
[[ "$MPI" == 0 ]] || tools+=(mpirun mpicxx)
for tool in "${tools[@]}"; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool not found (see scripts/install-deps.sh)"
done
[[ -r "$KEYRING" ]] || die "$KEYRING missing (package debian-archive-keyring)"
mkdir -p "$WORKDIR"
WORKDIR=$(cd "$WORKDIR" && pwd)

# Directory holding the ns-3 tree's `ns3` script under $1 (the tarball may unpack to
# ns-3.37/ or to an ns-allinone-3.37/ folder that contains ns-3.37/).
find_ns3_tree()
{
    local script
    while IFS= read -r script; do
        local dir=${script%/ns3}
        if [[ -f "$dir/test.py" && -d "$dir/src/core" ]]; then
            echo "$dir"
            return 0
        fi
    done < <(find "$1" -maxdepth 3 -type f -name ns3 2>/dev/null | sort)
    return 1
}

SRC_DIR=$WORKDIR/src
NS3_DIR=$(find_ns3_tree "$SRC_DIR" || true)

if [[ -z "$NS3_DIR" ]]; then
    section "Fetching the ns3 $NS3_VERSION source package from $DEBIAN_MIRROR"
    # A private apt configuration: its own sources, lists and cache, so the system's
    # apt state is neither read nor changed.
    APT_DIR=$WORKDIR/apt
    mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/cache/archives/partial" "$WORKDIR/download"
    echo "deb-src [signed-by=$KEYRING] $DEBIAN_MIRROR bookworm main" >"$APT_DIR/sources.list"
    APT_OPTS=(
        -o "Dir::Etc::SourceList=$APT_DIR/sources.list"
        -o "Dir::Etc::SourceParts=/dev/null"
        -o "Dir::State::Lists=$APT_DIR/lists"
        -o "Dir::Cache=$APT_DIR/cache"
    )
    # apt downloads as user _apt where it can: let it write the download folder.
    if ((EUID == 0)) && id _apt >/dev/null 2>&1; then
        chown _apt "$WORKDIR/download"
    fi
    apt-get "${APT_OPTS[@]}" update
    (cd "$WORKDIR/download" && apt-get "${APT_OPTS[@]}" source --download-only ns3)

    shopt -s nullglob
    tarballs=("$WORKDIR/download/ns3_$NS3_VERSION"*.orig.tar.*)
    shopt -u nullglob
    ((${#tarballs[@]} == 1)) || die "expected one ns3_$NS3_VERSION*.orig.tar.* in $WORKDIR/download"

    section "Unpacking $(basename "${tarballs[0]}")"
    rm -rf "$SRC_DIR.tmp"
    mkdir -p "$SRC_DIR.tmp"
    # python3's tarfile reads .bz2/.xz/.gz without the bzip2 or xz programs.
    python3 -m tarfile -e "${tarballs[0]}" "$SRC_DIR.tmp"
    rm -rf "$SRC_DIR"
    mv "$SRC_DIR.tmp" "$SRC_DIR"
    NS3_DIR=$(find_ns3_tree "$SRC_DIR") || die "no ns-3 tree (ns3 script + test.py) in ${tarballs[0]}"
else
    section "Reusing the unpacked ns-3 tree"
fi
echo "ns-3 tree: $NS3_DIR"

# ns-3's ns3 script refuses to run as root (some versions look at $USER, newer ones at
# the uid). This is a throw-away tree, often checked in a root container: disable it.
if ((EUID == 0)) && grep -q '^def refuse_run_as_root():' "$NS3_DIR/ns3" &&
    ! grep -q 'ai-fabric check-in-tree' "$NS3_DIR/ns3"; then
    sed -i 's/^def refuse_run_as_root():$/&\n    return  # disabled by ai-fabric check-in-tree (runs as root)/' "$NS3_DIR/ns3"
    echo "Disabled the ns3 script's root check in this copy of ns-3."
elif ((EUID == 0)) && ! grep -q 'ai-fabric check-in-tree' "$NS3_DIR/ns3"; then
    echo "warning: running as root and no refuse_run_as_root() found in ns3 to disable" >&2
fi

section "Copying the module to contrib/ai-fabric"
MODULE_DIR=$NS3_DIR/contrib/ai-fabric
rm -rf "$MODULE_DIR"
mkdir -p "$MODULE_DIR"
tar -C "$REPO_ROOT" --exclude=./.git --exclude=./build --exclude='./build-*' \
    --exclude='./cmake-build-*' -cf - . | tar -C "$MODULE_DIR" -xf -
echo "copied $(find "$MODULE_DIR" -type f | wc -l) files from $REPO_ROOT"

cd "$NS3_DIR"

# ns-3 forwards each module header from build/include/ns3/ to its source; a header the
# module has since moved or made private would leave a stale one behind.
stale=$(grep -lF "$MODULE_DIR/" build/include/ns3/*.h 2>/dev/null || true)
if [[ -n "$stale" ]]; then
    rm -f $stale
    echo "removed $(wc -w <<<"$stale") forwarding headers of the previous copy"
fi

configure=(--enable-examples --enable-tests --enable-modules "ai-fabric")
# The MPI tree builds the programs only: its check is scripts/check-distributed.sh (the
# test.py suites are the plain tree's).
[[ "$MPI" == 0 ]] || configure=(--enable-examples --disable-tests --enable-mpi --enable-modules "ai-fabric;mpi")
section "Configuring: ./ns3 configure ${configure[*]}"
./ns3 configure "${configure[@]}"

section "Building: ./ns3 build -j $JOBS"
./ns3 build -j "$JOBS"

if [[ "$MPI" == 1 ]]; then
    section "Distributed check: scripts/check-distributed.sh"
    bash "$REPO_ROOT/scripts/check-distributed.sh" "$NS3_DIR"
    section "Done"
    echo "In-tree MPI check passed in ${SECONDS}s (tree: $NS3_DIR)"
    exit 0
fi

section "Testing: ./test.py --no-build -s 'ai-fabric-*'"
# The GoogleTest suites write their XML reports here (test/gtest-suite-adapter.cc).
GTEST_XML_DIR=$WORKDIR/gtest-xml
rm -rf "$GTEST_XML_DIR"
mkdir -p "$GTEST_XML_DIR"
testpy_log=$WORKDIR/test-py.log
testpy_status=0
AI_FABRIC_GTEST_OUTPUT_DIR=$GTEST_XML_DIR ./test.py --no-build -s 'ai-fabric-*' 2>&1 |
    tee "$testpy_log" || testpy_status=$? # pipefail: test.py's own status

section "Test count"
# test.py's summary: "N of M tests passed (N passed, S skipped, F failed, C crashed, ...)".
summary=$(grep -E '^[0-9]+ of [0-9]+ tests passed' "$testpy_log" | tail -n1 || true)
[[ -n "$summary" ]] || die "test.py printed no summary (see $testpy_log)"
read -r ns3_passed ns3_total < <(sed -E 's/^([0-9]+) of ([0-9]+) .*/\1 \2/' <<<"$summary")
# Every GoogleTest report: tests run, skipped and failed.
read -r gtest_total gtest_skipped gtest_failed gtest_files < <(python3 - "$GTEST_XML_DIR" <<'PY'
import glob, sys
import xml.etree.ElementTree as ET
total = skipped = failed = files = 0
for path in sorted(glob.glob(sys.argv[1] + "/*.xml")):
    files += 1
    for case in ET.parse(path).getroot().iter("testcase"):
        if case.get("status", "run") != "run":
            continue
        total += 1
        if case.get("result") == "skipped" or case.find("skipped") is not None:
            skipped += 1
        elif case.find("failure") is not None or case.find("error") is not None:
            failed += 1
print(total, skipped, failed, files)
PY
)
echo "ns-3 TestSuites: $ns3_passed of $ns3_total passed ($summary)"
echo "GoogleTests: $gtest_total ran in $gtest_files suites ($gtest_skipped skipped, $gtest_failed failed)"
((ns3_total > 0 && gtest_total > 0)) || die "no tests ran"
((testpy_status == 0 && ns3_passed == ns3_total && gtest_failed == 0)) ||
    die "in-tree tests failed (test.py exit status $testpy_status; log $testpy_log)"

section "Running: ./ns3 run roce-incast"
./ns3 run roce-incast </dev/null

section "Done"
echo "In-tree check passed in ${SECONDS}s (tree: $NS3_DIR)"
