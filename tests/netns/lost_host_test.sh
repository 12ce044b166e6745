#!/bin/bash
# The lane's share of tests/netns/lost_host_stress.sh: 3 runs, each a random fault (stop, kill,
# link down, launcher stop) at a random moment on a random host; a bench run takes 30 or more
# (bash tests/netns/lost_host_stress.sh 30). The seed is printed: IBGPU_STRESS_SEED replays it.
exec bash "$(dirname "$0")/lost_host_stress.sh" "${IBGPU_LOST_HOST_RUNS:-3}"
