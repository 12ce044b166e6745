#!/bin/bash
# Four hosts, h3 at 300mbit: half of the six pairs are slow, so a median is a slow pair's; the
# pairs not touching h3 are the reference (tests/netns/small_group.sh).
source "$(dirname "$0")/small_group.sh"
small_group 4 3
