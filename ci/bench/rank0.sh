#!/usr/bin/env bash
# Rank 0's whole path after the gather (tests/bench/rank0_bench.cpp): builds the bench and runs it
# at 256, 1,024 and 4,096 hosts x 8 ranks with peers:16, each count in a process of its own; prints
# each step's CPU time and peak memory, and the growth exponent between the counts.
#   ci/bench/rank0.sh                       # build/, standard preset, 256 1024 4096
#   BUILD=build-rel PRESET=full HOSTS="256 1024" ci/bench/rank0.sh
# Environment: BUILD (the CMake build folder, build), PRESET (standard|full), HOSTS (the host
# counts, even), JOBS (build jobs, 2). The JSON report is written to a temporary folder and removed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
BUILD=${BUILD:-build} PRESET=${PRESET:-standard} HOSTS=${HOSTS:-"256 1024 4096"} JOBS=${JOBS:-2}
[ -f "$BUILD/CMakeCache.txt" ] || cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$BUILD" -j"$JOBS" --target ibgpu_rank0_bench
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# shellcheck disable=SC2086  # HOSTS is a list
"$BUILD/tests/ibgpu_rank0_bench" --preset "$PRESET" --dir "$dir" $HOSTS
