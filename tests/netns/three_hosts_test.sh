#!/bin/bash
# Three hosts, h2 at 300mbit: two of the three pairs are slow, the third is the reference
# (tests/netns/small_group.sh).
source "$(dirname "$0")/small_group.sh"
small_group 3 2
