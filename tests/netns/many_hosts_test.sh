#!/bin/bash
# Many ranks on many hosts, the real binary end to end: 32 namespace hosts x 2 ranks (64 ranks on
# this machine's cores), `check --transport mpi --pairs peers:4 --profile cpu`, h7 slowed to 300
# Mbit/s. The run ends with a report of all 64 ranks and 32 hosts that drains h7 and names no other
# node. ci/bench/many_hosts.sh is the case (HOSTS and RANKS set larger runs by hand); it exits 77
# where namespace hosts cannot run.
set -euo pipefail
: "${IBGPU:?path of the ibgpu binary}" "${IBGPU_SOURCE_DIR:?repository root}"
HOSTS=32 RANKS=2 LIMIT=200 exec "$IBGPU_SOURCE_DIR/ci/bench/many_hosts.sh"
