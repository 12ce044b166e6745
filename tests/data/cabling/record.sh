#!/usr/bin/env bash
# Records what infiniband-diags print for the simulated fabric of each *.net here: ibsim
# (ibsim-utils) serves the fabric, and ibnetdiscover and iblinkinfo, run with ibsim's umad
# library preloaded (ibsim-run), discover it as they would a real one. The outputs are the
# fixtures the cabling parser is tested on (tests/core/cabling_test.cpp):
#   NAME.net -> NAME.ibnetdiscover, NAME.iblinkinfo
# Usage: tests/data/cabling/record.sh   (installs ibsim-utils and infiniband-diags when missing)
set -euo pipefail
cd "$(dirname "$0")"
. ../../../ci/packages.sh
install_packages tests/data/cabling/record.sh ibsim-utils infiniband-diags
for net in *.net; do
  name=${net%.net}
  work=$(mktemp -d)
  # ibsim reads commands on stdin: a FIFO held open keeps it serving until we are done.
  mkfifo "$work/in"
  ibsim -s "$PWD/$net" <"$work/in" >"$work/ibsim.log" 2>&1 &
  sim=$!
  exec 3>"$work/in"
  sleep 1
  timeout 30 ibsim-run ibnetdiscover >"$name.ibnetdiscover" 2>"$work/disc.err"
  timeout 30 ibsim-run iblinkinfo >"$name.iblinkinfo" 2>"$work/link.err"
  exec 3>&-
  kill "$sim" 2>/dev/null || true
  wait "$sim" 2>/dev/null || true
  rm -rf "$work"
  echo "record.sh: $name.ibnetdiscover ($(grep -c '^\[' "$name.ibnetdiscover") port lines), $name.iblinkinfo"
done
