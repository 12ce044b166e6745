#!/usr/bin/env bash
# Lane 4, topology (b). Runs INSIDE the Soft-RoCE VM:  ci/vm/run tests/vm/rxe_pair_smoke.sh
# rxe_a (veth_a) <-> rxe_b (veth_b); the perftest server runs in namespace hb on rxe_b, the
# client in namespace ha on rxe_a, out-of-band over the ha/hb link. Asserts that the RDMA
# traffic crosses veth_b, and that netem delay on veth_b shows up in ib_write_lat: perftest
# reports half the round trip, so with D ms of one-way delay t_min >= D/2 (a hard lower bound,
# unlike averages under TCG). Writes $VM_OUT/pair.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
. ci/vm/lib.sh
[ -d /sys/module/rdma_rxe ] || vm_die "rdma_rxe is not loaded: run this through ci/vm/run"
delay_ms=${PAIR_DELAY_MS:-20}
out=${VM_OUT:-/tmp}

vm_rxe_pair || vm_die "could not set up the rxe pair"
srv="hb:rxe_b:$VM_GID_B"
cli="ha:rxe_a:$VM_GID_A"
rx_packets() { cat /sys/class/net/veth_b/statistics/rx_packets; }

rx0=$(rx_packets)
vm_perftest lat_base 18517 "$srv" "$cli" "$VM_OOB_B_ADDR" 3 ib_write_lat -s 64 -n 100 ||
  vm_die "ib_write_lat over veth failed"
read -r _ _ base_min _ base_typ _ <<<"$VM_PT_LINE"
rx1=$(rx_packets)
[ $((rx1 - rx0)) -ge 100 ] || vm_die "RDMA traffic did not cross veth_b (rx_packets $rx0 -> $rx1)"

vm_impair_delay "${delay_ms}ms" veth_b
vm_perftest lat_delay 18518 "$srv" "$cli" "$VM_OOB_B_ADDR" 3 ib_write_lat -s 64 -n 100 ||
  vm_die "ib_write_lat with netem delay failed"
read -r _ _ del_min _ del_typ _ <<<"$VM_PT_LINE"
vm_impair_clear veth_b

echo "ib_write_lat rxe_a->rxe_b: t_min $base_min us (typical $base_typ), with ${delay_ms}ms netem on veth_b: t_min $del_min us (typical $del_typ)"
half=$((delay_ms * 1000 / 2))
awk -v d="$del_min" -v h="$half" 'BEGIN { exit !(d >= 0.9 * h) }' ||
  vm_die "netem delay not visible: t_min $del_min us < 0.9 x $half us"
awk -v b="$base_min" -v h="$half" 'BEGIN { exit !(b < 0.9 * h) }' ||
  vm_die "baseline t_min $base_min us is already above 0.9 x $half us"
printf 'base_t_min_us=%s\ndelay_ms=%s\ndelay_t_min_us=%s\nveth_b_rx_packets=%s\n' \
  "$base_min" "$delay_ms" "$del_min" "$((rx1 - rx0))" >"$out/pair.txt"
vm_log "rxe pair smoke: PASS"
