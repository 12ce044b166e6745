#!/usr/bin/env bash
# Lane 4 smoke test. Runs INSIDE the Soft-RoCE VM:  ci/vm/run tests/vm/perftest_smoke.sh
# Topology (a): rxe0 on dummy0. Checks that ibv_devinfo shows rxe0 PORT_ACTIVE over Ethernet,
# then runs perftest ib_write_bw and ib_write_lat (server + client on rxe0, out-of-band over
# 127.0.0.1) with the RoCE v2 IPv4 GID index found in sysfs, asserts each prints its result
# line and prints the numbers. Writes $VM_OUT/perftest.txt (key=value) for the host side.
# Under TCG the absolute numbers mean nothing; they only prove that RDMA writes complete.
set -euo pipefail
cd "$(dirname "$0")/../.."
. ci/vm/lib.sh
[ -d /sys/module/rdma_rxe ] || vm_die "rdma_rxe is not loaded: run this through ci/vm/run"

bw_size=${SMOKE_BW_SIZE:-65536}
lat_size=${SMOKE_LAT_SIZE:-64}
iters=${SMOKE_ITERS:-200}
out=${VM_OUT:-/tmp}

vm_rxe_one rxe0 dummy0 192.0.2.1/24 || vm_die "could not set up rxe0 on dummy0"
gid=$VM_RXE_GID

info=$(ibv_devinfo -d rxe0) || vm_die "ibv_devinfo -d rxe0 failed"
echo "$info" | grep -q 'state:[[:space:]]*PORT_ACTIVE' || { echo "$info"; vm_die "rxe0 port is not PORT_ACTIVE"; }
echo "$info" | grep -q 'link_layer:[[:space:]]*Ethernet' || { echo "$info"; vm_die "rxe0 link layer is not Ethernet"; }
vm_log "ibv_devinfo: rxe0 PORT_ACTIVE, link_layer Ethernet; GID index $gid = $(cat /sys/class/infiniband/rxe0/ports/1/gids/"$gid")"

# Result line: #bytes #iterations BW-peak[MB/sec] BW-average[MB/sec] MsgRate[Mpps]
vm_perftest write_bw 18515 "rxe0:$gid" "rxe0:$gid" 127.0.0.1 4 ib_write_bw -s "$bw_size" -n "$iters" ||
  vm_die "ib_write_bw failed"
read -r bytes n bw_peak bw_avg msg_rate _ <<<"$VM_PT_LINE"
{ [ "$bytes" = "$bw_size" ] && [ "$n" = "$iters" ]; } || vm_die "unexpected ib_write_bw result line: $VM_PT_LINE"

# Result line: #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%  (usec)
vm_perftest write_lat 18516 "rxe0:$gid" "rxe0:$gid" 127.0.0.1 5 ib_write_lat -s "$lat_size" -n "$iters" ||
  vm_die "ib_write_lat failed"
read -r bytes n t_min t_max t_typical t_avg _ <<<"$VM_PT_LINE"
{ [ "$bytes" = "$lat_size" ] && [ "$n" = "$iters" ]; } || vm_die "unexpected ib_write_lat result line: $VM_PT_LINE"

echo "ib_write_bw  rxe0 gid $gid: $bw_size B x $iters: BW average $bw_avg MB/s, peak $bw_peak MB/s, $msg_rate Mpps"
echo "ib_write_lat rxe0 gid $gid: $lat_size B x $iters: t_typical $t_typical us, t_avg $t_avg us, t_min $t_min us, t_max $t_max us"
cat >"$out/perftest.txt" <<EOT
gid_index=$gid
bw_size=$bw_size
bw_iters=$iters
bw_avg_MBps=$bw_avg
bw_peak_MBps=$bw_peak
lat_size=$lat_size
lat_typical_us=$t_typical
lat_avg_us=$t_avg
EOT
vm_log "perftest smoke: PASS"
