#!/usr/bin/env bash
# Lane 4: ibgpu's verbs transport on real RDMA devices (Soft-RoCE). Runs INSIDE the VM:
#   IBGPU_VM_ENV="IBGPU IBGPU_VM_DIR" IBGPU=$PWD/build/ibgpu ci/vm/run tests/vm/verbs_lane.sh
# (tests/vm/run_verbs_lane.sh does that from the host). Ranks are MPMD parts with IBGPU_HOSTNAME
# set, so they look like separate hosts; every mpirun runs under a hard `timeout`.
#   a. topology (a), hosts a and b on rxe0: probe bw (64K,1M) and lat (8 B) over verbs; status
#      ok, metrics consistent (Gb/s = 8 x GB/s, Mpps = GB/s / size, peak >= average, latency
#      statistics ordered), the report validates against the schema.
#   b. topology (b), rxe_a (veth_a) <-> rxe_b (veth_b), three hosts:
#        a on rxe_a with 198.51.100.1, b on rxe_b (198.51.100.2), c on rxe_a with a second
#        address 198.51.100.3 (its own GID index).
#      a-b and c-b both cross the veth wire; a-c stays on rxe_a (the route to a local address
#      of the same netdev is local, so rxe loops it back). A prio qdisc on each veth end sends
#      only the a-b packets (u32 on source and destination address) to an impairment band, and
#      the c-b packets to a counting band, so ONE pair is impaired and the pair on the same wire
#      shows what the wire does without it (the band counters prove both). Asserted, with
#      netem delay D (50 ms) on what veth_b sends for a-b: the a-b latency min >= 0.9 x D/2 (a
#      hard bound: a sample is half a round trip), its p50 > 5x the best unimpaired p50 and its
#      min > 5x every unimpaired min (minima, because 3 spinning ranks on 2 emulated CPUs can
#      push an unimpaired p50 to milliseconds), and no unimpaired min near D/2. With tbf
#      (20 mbit) on the a-b packets both ways: a-b bandwidth 3x below its own unimpaired
#      baseline, 2x below the slowest unimpaired pair of the same run, and under the limit.
#      The classifier modules (sch_prio, cls_u32) are loaded from the unpacked kernel of
#      ci/vm/setup ($IBGPU_VM_DIR/kernel), which the VM sees through the host root.
#   c. a peer SIGKILLed while a long bw run moves data (3000 packets past the 1 MB warmup by
#      rxe0's sent_pkts counter): mpirun exits non-zero within 60 s, rank 0 still writes a
#      valid report with a timeout result naming host b.
#   d. --gid-index 99 and --hca nosuchdev:1 with --transport verbs: exit 64, a clear message (a
#      clean "ibgpu: ..." line for --hca) and a JSON error document at --json (README: "64 usage
#      or configuration error (one line on stderr; a JSON error document with --json)").
#   e. rank 1's verbs setups fail by a hidden test option (ibgpu's fault, not its port's), check on
#      hosts a and b: each end's port writes to itself (net.verbs.loopback) and passes, so the
#      pair's error is unknown for the instrument (PROBE_ERROR_NOT_REPRODUCED): exit 3, no node
#      drained or degraded, no verdict failed.
#   f. two rails per host, topology (f) below: check on hosts a and b, rail to rail, as built
#      (VERBS_F_CLEAN=1: nothing named, exit 0), and with host a's rail 2 sending through its rail 1 (a tc redirect
#      on veth_a2's egress): a/rxe_a2:1 failed for RAIL_MASKED and node a admitted without it (exit
#      1), nothing else named, each end's share of its pair's bytes asserted, and with the as-built
#      cabling (tests/vm/two_rails.cabling) one work order, for that port's cable; the rxe devices'
#      packet counters and the netdevs' byte counters printed side by side. VERBS_F_RUNS (1) masked
#      runs.
# The JSON checks (tests/vm/verbs_check.py) run at the end and print what was measured.
# Knobs: VERBS_LANE_ONLY="a b c d e f" (parts to run), VERBS_DELAY_MS (50), VERBS_RATE_MBIT (20),
# VERBS_F_RUNS (1), VERBS_F_CLEAN (0).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. ci/vm/lib.sh
[ -d /sys/module/rdma_rxe ] || vm_die "rdma_rxe is not loaded: run this through ci/vm/run"

IBGPU=${IBGPU:-build/ibgpu}
[ -x "$IBGPU" ] || vm_die "no ibgpu binary at $IBGPU (set IBGPU)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Ranks talk over lo only: MPI traffic must not cross (or be shaped on) the veth wire.
MPIRUN=(mpirun --oversubscribe --bind-to none --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo)
OUT=${VM_OUT:-/tmp/verbs_lane}
mkdir -p "$OUT"
ONLY=${VERBS_LANE_ONLY:-a b c d e f}
DELAY_MS=${VERBS_DELAY_MS:-50}
RATE_MBIT=${VERBS_RATE_MBIT:-20}

failures=()
fail() { echo "verbs_lane: FAIL: $*"; failures+=("$*"); }
want() { case " $ONLY " in *" $1 "*) return 0 ;; esac; return 1; }
# The JSON checks run together at the end, in one python process (each start costs seconds
# under TCG): validate FILE and check KIND ARGS... queue them.
to_validate=()
checks=()
validate() { to_validate+=("$1"); }
check() { checks+=(-- "$@"); }
show_log() { sed 's/^/    | /' "$1" | grep -v '^    | *$' | tail -n "${2:-40}"; }

# gid_index DEV IPV4: the RoCE v2 GID index of IPV4 on port 1 of DEV. (lib.sh's vm_gid_index
# reads the whole table in name order, 0 1 10 100 ... 2, with a cat per entry: about 35 s under
# TCG for an address at index 2. Real tables put addresses in the first few entries.)
gid_index() {
  local port=/sys/class/infiniband/$1/ports/1 want i gid type
  want=0000:0000:0000:0000:0000:ffff:$(IFS=. read -r a b c d <<<"$2"; printf '%02x%02x:%02x%02x' "$a" "$b" "$c" "$d")
  for _ in $(seq 1 50); do
    for i in $(seq 0 31); do
      read -r gid <"$port/gids/$i" 2>/dev/null || continue
      [ "$gid" = "$want" ] || continue
      read -r type <"$port/gid_attrs/types/$i" 2>/dev/null || continue
      [ "$type" = "RoCE v2" ] && { echo "$i"; return 0; }
    done
    sleep 0.2
  done
  echo "verbs_lane: no RoCE v2 GID for $2 on $1" >&2
  return 1
}

# launch LIMIT NAME SPEC... -- IBGPU-ARGS...: one MPMD part per SPEC "HOST DEV:PORT GID", each
# with --hca DEV:PORT --gid-index GID; output in $OUT/NAME.log; sets rc and took (seconds).
rc=0 took=0
launch() {
  local limit=$1 name=$2 spec args=() h d g t0
  shift 2
  local specs=()
  while [ "$1" != -- ]; do specs+=("$1"); shift; done
  shift
  for spec in "${specs[@]}"; do
    read -r h d g <<<"$spec"
    [ ${#args[@]} -eq 0 ] || args+=(:)
    args+=(-np 1 -x "IBGPU_HOSTNAME=$h" "$IBGPU" "$@" --hca "$d" --gid-index "$g")
  done
  t0=$(date +%s.%N)
  timeout -k 5 "$limit" "${MPIRUN[@]}" "${args[@]}" >"$OUT/$name.log" 2>&1
  rc=$?
  took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  vm_log "$name: exit $rc in ${took}s"
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && awk -v t="$took" -v l="$limit" 'BEGIN { exit !(t >= l) }'; then
    fail "$name: mpirun hung past ${limit}s (killed)"
    show_log "$OUT/$name.log"
  fi
}
expect_ok() { # NAME JSON
  if [ "$rc" -ne 0 ]; then
    fail "$1: exit $rc, expected 0"
    show_log "$OUT/$1.log"
  fi
  if [ -s "$2" ]; then validate "$2"; else fail "$1: no report $2"; return 1; fi
  return 0
}

# load_modules MODULE...: from the unpacked kernel of ci/vm/setup ($IBGPU_VM_DIR/kernel), which the
# VM sees through the host root.
load_modules() {
  local kver kroot="" d vm_dir=${IBGPU_VM_DIR:-build/vm}
  kver=$(uname -r)
  for d in "$vm_dir/kernel" "$vm_dir/kernel/usr"; do
    [ -d "$d/lib/modules/$kver" ] && kroot=$d
  done
  [ -n "$kroot" ] || vm_die "no unpacked kernel modules for $kver under $vm_dir/kernel (IBGPU_VM_DIR?)"
  modprobe -d "$kroot" -S "$kver" -a "$@" || vm_die "cannot load $* from $kroot"
}

part_start=$SECONDS
part_done() { vm_log "part $1 done in $((SECONDS - part_start))s"; part_start=$SECONDS; }

# --- a. topology (a): two hosts on rxe0 -------------------------------------------------------
vm_rxe_one rxe0 dummy0 192.0.2.1/24 || vm_die "could not set up rxe0"
G0=$VM_RXE_GID
A_BW_SIZES=65536,1048576
A_BW_ITERS=${VERBS_A_BW_ITERS:-100}
A_LAT_ITERS=${VERBS_A_LAT_ITERS:-500}
if want a; then
  echo "== a. topology (a): hosts a, b on rxe0 (GID $G0)"
  launch 90 a_bw "a rxe0:1 $G0" "b rxe0:1 $G0" -- probe bw --transport verbs --sizes 64K,1M \
    --iters "$A_BW_ITERS" --timeout 20 --json "$OUT/a_bw.json"
  expect_ok a_bw "$OUT/a_bw.json" && check one-bw "$OUT/a_bw.json" gid="$G0" sizes=$A_BW_SIZES
  grep -q '^Network' "$OUT/a_bw.log" || fail "a_bw: no Network table on stdout"
  launch 90 a_lat "a rxe0:1 $G0" "b rxe0:1 $G0" -- probe lat --transport verbs --sizes 8 \
    --iters "$A_LAT_ITERS" --timeout 20 --json "$OUT/a_lat.json"
  expect_ok a_lat "$OUT/a_lat.json" && check one-lat "$OUT/a_lat.json" gid="$G0" iters="$A_LAT_ITERS"
  part_done a
fi

# --- b. topology (b): three hosts, one impaired pair ------------------------------------------
if want b; then
  echo "== b. topology (b): a rxe_a/.1, b rxe_b/.2, c rxe_a/.3; only a-b impaired"
  load_modules sch_prio cls_u32 sch_tbf sch_netem
  VM_PAIR_NETNS=0 vm_rxe_pair || vm_die "could not set up the rxe pair"
  A=$VM_A_ADDR B=$VM_B_ADDR C=198.51.100.3
  ip addr add "$C/24" dev veth_a || vm_die "ip addr add $C"
  # Like lib.sh does for A: locally made packets for C leave through veth_b to reach veth_a.
  { ip route add "$C" dev veth_b src "$B" table 102 && ip rule add pref 12 iif lo to "$C" lookup 102 &&
    ip neigh replace "$C" lladdr "$(cat /sys/class/net/veth_a/address)" dev veth_b nud permanent; } ||
    vm_die "routing for $C"
  GC=$(gid_index rxe_a "$C") || vm_die "no GID for $C on rxe_a"
  # The paths: a-b and c-b over the wire, a-c local.
  route_dev() { ip route get "$1" from "$2" oif "$3" | awk '{ for (i = 1; i < NF; i++) if ($i == "dev") { print $(i + 1); exit } }'; }
  { [ "$(route_dev "$B" "$A" veth_a)" = veth_a ] && [ "$(route_dev "$A" "$B" veth_b)" = veth_b ] &&
    [ "$(route_dev "$B" "$C" veth_a)" = veth_a ] && [ "$(route_dev "$C" "$B" veth_b)" = veth_b ] &&
    [ "$(route_dev "$C" "$A" veth_a)" = lo ] && [ "$(route_dev "$A" "$C" veth_a)" = lo ]; } ||
    { ip rule; ip route show table all | grep -v '^fe80\|^ff00\|^local ::\|^::'; fail "topology (b) routes are not as designed"; }
  vm_log "GIDs: a rxe_a/$VM_GID_A ($A), b rxe_b/$VM_GID_B ($B), c rxe_a/$GC ($C)"
  # prio bands: 1:1 (10:) = the a-b packets, impaired; 1:2 (20:) = the c-b packets, counted;
  # 1:3 (30:) = the rest (priomap sends everything unclassified there).
  classes() { # DEV SRC-OF-AB DST-OF-AB SRC-OF-CB DST-OF-CB
    tc qdisc replace dev "$1" root handle 1: prio bands 3 priomap 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 &&
      tc qdisc add dev "$1" parent 1:1 handle 10: pfifo &&
      tc qdisc add dev "$1" parent 1:2 handle 20: pfifo &&
      tc qdisc add dev "$1" parent 1:3 handle 30: pfifo &&
      tc filter add dev "$1" parent 1: protocol ip prio 1 u32 match ip src "$2/32" match ip dst "$3/32" flowid 1:1 &&
      tc filter add dev "$1" parent 1: protocol ip prio 2 u32 match ip src "$4/32" match ip dst "$5/32" flowid 1:2
  }
  { classes veth_a "$A" "$B" "$C" "$B" && classes veth_b "$B" "$A" "$B" "$C"; } || vm_die "tc classes"
  # (A qdisc can not be replaced by one of another kind under the same handle: delete, add.)
  impair() {
    tc qdisc del dev "$1" parent 1:1 handle 10: 2>/dev/null
    tc qdisc add dev "$1" parent 1:1 handle 10: "${@:2}" || fail "tc qdisc add dev $1 ${*:2}"
  }
  band_pkts() { tc -s qdisc show dev "$1" parent "$2" | awk '/Sent/ { print $4; exit }'; }
  band_report() {
    local d
    for d in veth_a veth_b; do
      echo "    $d: a-b band $(band_pkts $d 1:1) pkts, c-b band $(band_pkts $d 1:2) pkts, other $(band_pkts $d 1:3) pkts"
    done
  }
  hosts3=("a rxe_a:1 $VM_GID_A" "b rxe_b:1 $VM_GID_B" "c rxe_a:1 $GC")
  B_LAT_ITERS=${VERBS_B_LAT_ITERS:-50}
  B_BW_ITERS=${VERBS_B_BW_ITERS:-50}

  # Latency: netem delay on what veth_b sends for a-b (b -> a).
  impair veth_b netem delay "${DELAY_MS}ms"
  launch 120 b_lat "${hosts3[@]}" -- probe lat --transport verbs --sizes 8 --iters "$B_LAT_ITERS" \
    --timeout 30 --json "$OUT/b_lat.json"
  band_report
  ab0=$(band_pkts veth_b 1:1) cb0=$(band_pkts veth_a 1:2)
  [ "${ab0:-0}" -ge "$B_LAT_ITERS" ] || fail "b_lat: only ${ab0:-0} a-b packets went through the delay band"
  [ "${cb0:-0}" -ge "$B_LAT_ITERS" ] || fail "b_lat: only ${cb0:-0} c-b packets crossed the wire"
  expect_ok b_lat "$OUT/b_lat.json" && check pair-lat "$OUT/b_lat.json" delay_ms="$DELAY_MS" iters="$B_LAT_ITERS"
  impair veth_b pfifo

  # Bandwidth: a baseline, then tbf on the a-b packets both ways (the writer's data and the acks).
  launch 120 b_bw0 "${hosts3[@]}" -- probe bw --transport verbs --sizes 64K --iters "$B_BW_ITERS" \
    --tx-depth 8 --timeout 30 --json "$OUT/b_bw0.json"
  expect_ok b_bw0 "$OUT/b_bw0.json"
  # The limiter shapes and never drops: its queue (latency 1 s = 2.5 MB at 20 mbit) holds a whole
  # tx window (8 x 64 KiB). A dropping limiter makes rxe retransmit whole windows, and under
  # kernel 6.1's rxe that ended about one run in three with "remote invalid request error"
  # (the a-b pair errored instead of measuring slow): a test of rxe's recovery, not of ibgpu.
  for d in veth_a veth_b; do impair "$d" tbf rate "${RATE_MBIT}mbit" burst 32kbit latency 1s; done
  launch 120 b_bw1 "${hosts3[@]}" -- probe bw --transport verbs --sizes 64K --iters "$B_BW_ITERS" \
    --tx-depth 8 --timeout 30 --json "$OUT/b_bw1.json"
  band_report
  expect_ok b_bw1 "$OUT/b_bw1.json"
  [ -s "$OUT/b_bw0.json" ] && [ -s "$OUT/b_bw1.json" ] &&
    check pair-bw "$OUT/b_bw0.json" "$OUT/b_bw1.json" rate_mbit="$RATE_MBIT"
  for d in veth_a veth_b; do tc qdisc del dev "$d" root 2>/dev/null; done
  part_done b
fi

# --- c. a peer killed mid-probe -------------------------------------------------------------------
if want c; then
  echo "== c. host b SIGKILLed during a long bw run on rxe0"
  counter=/sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts
  rm -f "$OUT/c_b.pid" "$OUT/c_kill.json"
  t0=$SECONDS
  # Host b's part records its pid and execs ibgpu (same process): the one to kill.
  # shellcheck disable=SC2016  # $$, $0 and $@ are the inner bash's own
  timeout -k 5 120 "${MPIRUN[@]}" \
    -np 1 -x IBGPU_HOSTNAME=a "$IBGPU" probe bw --transport verbs --hca rxe0:1 --gid-index "$G0" \
      --sizes 1M --iters 5000 --warmup 1 --timeout 10 --json "$OUT/c_kill.json" : \
    -np 1 -x IBGPU_HOSTNAME=b bash -c 'echo $$ >"$0"; exec "$@"' "$OUT/c_b.pid" \
      "$IBGPU" probe bw --transport verbs --hca rxe0:1 --gid-index "$G0" \
      --sizes 1M --iters 5000 --warmup 1 --timeout 10 --json "$OUT/c_kill.json" \
    >"$OUT/c_kill.log" 2>&1 &
  mpirun_pid=$!
  # Kill once the measured writes stream: rxe0 has sent ~3000 packets (3 MB) since the pid showed.
  killed_at=""
  start_pkts=""
  for _ in $(seq 1 300); do
    sleep 0.2
    kill -0 "$mpirun_pid" 2>/dev/null || break
    [ -s "$OUT/c_b.pid" ] || continue
    now=$(cat "$counter" 2>/dev/null || echo 0)
    [ -n "$start_pkts" ] || start_pkts=$now
    if [ $((now - start_pkts)) -ge 3000 ]; then
      bpid=$(cat "$OUT/c_b.pid")
      vm_log "c: rxe0 sent_pkts +$((now - start_pkts)); SIGKILL host b (pid $bpid)"
      kill -KILL "$bpid" && killed_at=$SECONDS
      break
    fi
  done
  wait "$mpirun_pid"
  rc=$?
  vm_log "c: mpirun exit $rc, $((SECONDS - t0))s in all${killed_at:+, $((SECONDS - killed_at))s after the kill}"
  if [ -z "$killed_at" ]; then
    fail "c: host b was never killed (the bw run did not stream? rc $rc)"
    show_log "$OUT/c_kill.log"
  else
    [ "$rc" -ne 0 ] || fail "c: mpirun exit 0 after a rank was killed"
    [ $((SECONDS - killed_at)) -lt 60 ] || fail "c: took $((SECONDS - killed_at))s after the kill (hang?)"
    if [ -s "$OUT/c_kill.json" ]; then
      validate "$OUT/c_kill.json"
      check killed "$OUT/c_kill.json" host=b
    else
      fail "c: no report written after the kill"
      show_log "$OUT/c_kill.log"
    fi
  fi
  part_done c
fi

# --- d. usage errors ----------------------------------------------------------------------------
if want d; then
  echo "== d. usage errors with --transport verbs"
  usage_case() { # NAME REGEX ARGS...: REGEX must match a line of the output (stdout + stderr)
    local name=$1 re=$2 t0 msg rc
    shift 2
    rm -f "$OUT/$name.json"
    t0=$SECONDS
    timeout -k 5 60 "${MPIRUN[@]}" -np 1 -x IBGPU_HOSTNAME=a "$IBGPU" "$@" --json "$OUT/$name.json" : \
      -np 1 -x IBGPU_HOSTNAME=b "$IBGPU" "$@" >"$OUT/$name.log" 2>&1
    rc=$?
    msg=$(grep -m1 -E "$re" "$OUT/$name.log")
    vm_log "$name: exit $rc in $((SECONDS - t0))s: ${msg:-<no line matching /$re/>}"
    [ "$rc" -eq 64 ] || { fail "$name: exit $rc, expected 64"; show_log "$OUT/$name.log"; }
    [ -n "$msg" ] || { fail "$name: no clear message (no line matching /$re/)"; show_log "$OUT/$name.log"; }
    if [ -s "$OUT/$name.json" ]; then
      validate "$OUT/$name.json"
      check usage "$OUT/$name.json"
    else
      fail "$name: no JSON error document at --json $OUT/$name.json"
    fi
  }
  usage_case d_gid '[Gg][Ii][Dd][ _-]?index 99' probe bw --transport verbs --hca rxe0:1 --gid-index 99 --sizes 64K --timeout 20
  # One clean line (README: "one line on stderr"), e.g. "ibgpu: host a rank 0: --hca nosuchdev:1: ..."
  usage_case d_hca '^ibgpu: (host [a-z]+ rank [0-9]+: )?--hca nosuchdev:1: no such RDMA device on host [a-z]+ \(it has rxe[a-z0-9_, ]*\)$' probe lat --transport verbs --hca nosuchdev:1 --sizes 8 --timeout 20
  part_done d
fi

# --- e. a verbs error of ibgpu's own: the loopback controls -----------------------------------
if want e; then
  echo "== e. rank 1's verbs setups fail (a hidden test option, not its port): the controls"
  # The profile by its path in this tree: the binary's own search path (the source tree it was
  # built in) may lie under /tmp, which the VM mounts afresh.
  launch 120 e_controls "a rxe0:1 $G0" "b rxe0:1 $G0" -- check --profile "$PWD/profiles/cpu.toml" --transport verbs --sizes 64K \
    --iters 20 --allreduce off --test-verbs-error-rank 1 --timeout 20 --json "$OUT/e_controls.json"
  [ "$rc" -eq 3 ] || { fail "e_controls: exit $rc, expected 3 (unknown)"; show_log "$OUT/e_controls.log"; }
  if [ -s "$OUT/e_controls.json" ]; then
    validate "$OUT/e_controls.json"
    check controls "$OUT/e_controls.json"
  else
    fail "e_controls: no report $OUT/e_controls.json"
  fi
  part_done e
fi

# --- f. two rails per host, one masked -------------------------------------------------------------
# Topology (f): a switch per rail (bridges br_r1, br_r2) and a spine between them (the veth pair
# sp1-sp2). Host a: veth_a1 (198.18.1.1) on br_r1, veth_a2 (198.18.2.1) on br_r2, with rxe_a1 and
# rxe_a2 on them; host b the same with .2. The switches forward by static tables (learning and
# flooding off), as a subnet manager programs InfiniBand's: a host's MAC is reached from the other
# rail's switch over the spine. Routing as in topology (b): locally made packets for a peer's
# address leave through the rail's own veth (Soft-RoCE pins its port's netdev anyway).
# The mask: rxe routes by its own netdev, so no route can move its packets; a tc redirect on
# veth_a2's egress does, as a bond or a mis-steering route would. What rail 2 of host a sends leaves
# through veth_a1, crosses br_r1 and the spine, and reaches b's rail 2, which answers on its own
# rail: rxe_a2 still counts every packet it sends, veth_a2 none of their bytes.
rail_topology() {
  local h r n sw p mac t=200 pref=30 src dst
  ip link set lo up
  sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
    net.ipv4.conf.all.accept_local=1 net.ipv4.conf.default.accept_local=1 >/dev/null || return 1
  if ip rule show | grep -q '^0:'; then ip rule add pref 100 lookup local && ip rule del pref 0 || return 1; fi
  ip link add sp1 type veth peer name sp2 || return 1
  for r in 1 2; do
    ip link add "br_r$r" type bridge && ip link set "br_r$r" up && ip link set "sp$r" master "br_r$r" && ip link set "sp$r" up ||
      return 1
  done
  for h in a b; do
    for r in 1 2; do
      n=1 && [ "$h" = b ] && n=2
      ip link add "veth_$h$r" type veth peer name "sw_$h$r" && ip link set "sw_$h$r" master "br_r$r" || return 1
      sysctl -qw "net.ipv4.conf.veth_$h$r.rp_filter=0" "net.ipv4.conf.veth_$h$r.accept_local=1" >/dev/null
      ip addr add "198.18.$r.$n/24" dev "veth_$h$r" && ip link set "sw_$h$r" up && ip link set "veth_$h$r" up || return 1
    done
  done
  for p in sw_a1 sw_b1 sp1 sw_a2 sw_b2 sp2; do
    bridge link set dev "$p" learning off flood off mcast_flood off || return 1
  done
  for h in a b; do
    for r in 1 2; do
      mac=$(cat "/sys/class/net/veth_$h$r/address")
      for sw in 1 2; do
        p="sp$sw" && [ "$sw" = "$r" ] && p="sw_$h$r"
        bridge fdb replace "$mac" dev "$p" master static || return 1
      done
    done
  done
  for r in 1 2; do
    for src in a b; do
      dst=b && [ "$src" = b ] && dst=a
      local sa="198.18.$r.1" da="198.18.$r.2"
      [ "$src" = b ] && { sa="198.18.$r.2"; da="198.18.$r.1"; }
      t=$((t + 1)) pref=$((pref + 1))
      ip route add "$da" dev "veth_$src$r" src "$sa" table "$t" && ip rule add pref "$pref" iif lo to "$da" lookup "$t" &&
        ip neigh replace "$da" lladdr "$(cat "/sys/class/net/veth_$dst$r/address")" dev "veth_$src$r" nud permanent ||
        return 1
    done
  done
  for h in a b; do
    for r in 1 2; do
      rdma link add "rxe_$h$r" type rxe netdev "veth_$h$r" || { echo "vm: rdma link add rxe_$h$r failed" >&2; return 1; }
    done
  done
  for h in a b; do for r in 1 2; do vm_wait_active "rxe_$h$r" || return 1; done; done
}
# side_by_side LABEL: each rail's rxe packet counters beside its netdev's byte counters, since the
# last call (LABEL "start" only reads them).
declare -A side_last=()
since_last() { # VAR KEY FILE: VAR = the file's number less the last one read under KEY
  local now
  now=$(cat "$3" 2>/dev/null || echo 0)
  printf -v "$1" '%s' $((now - ${side_last[$2]:-0}))
  side_last[$2]=$now
}
side_by_side() {
  local d sent rcvd tx rx
  [ "$1" = start ] || echo "    $1: what each rail's rxe device counted, and its netdev"
  for d in a1 a2 b1 b2; do
    since_last sent "s$d" "/sys/class/infiniband/rxe_$d/ports/1/hw_counters/sent_pkts"
    since_last rcvd "r$d" "/sys/class/infiniband/rxe_$d/ports/1/hw_counters/rcvd_pkts"
    since_last tx "t$d" "/sys/class/net/veth_$d/statistics/tx_bytes"
    since_last rx "x$d" "/sys/class/net/veth_$d/statistics/rx_bytes"
    [ "$1" = start ] && continue
    printf '      rxe_%s sent %6d pkts, received %6d | veth_%s sent %7.1f MB, received %7.1f MB\n' \
      "$d" "$sent" "$rcvd" "$d" "$(awk -v b="$tx" 'BEGIN { print b / 1e6 }')" "$(awk -v b="$rx" 'BEGIN { print b / 1e6 }')"
  done
}
if want f; then
  echo "== f. two rails per host; host a's rail 2 masked behind its rail 1 (a tc redirect)"
  load_modules bridge act_mirred cls_matchall sch_ingress
  rail_topology || vm_die "could not set up topology (f)"
  declare -A gf=()
  for d in a1 a2 b1 b2; do
    gf[$d]=$(gid_index "rxe_$d" "198.18.${d:1}.$([ "${d:0:1}" = a ] && echo 1 || echo 2)") || vm_die "no GID on rxe_$d"
  done
  rails=("a rxe_a1:1 ${gf[a1]}" "a rxe_a2:1 ${gf[a2]}" "b rxe_b1:1 ${gf[b1]}" "b rxe_b2:1 ${gf[b2]}")
  vm_log "topology (f): GIDs a ${gf[a1]}/${gf[a2]}, b ${gf[b1]}/${gf[b2]}"
  f_check() { # NAME: check rail to rail, hosts a and b
    launch 150 "$1" "${rails[@]}" -- check --profile "$PWD/profiles/cpu.toml" --transport verbs --sizes 1M \
      --iters 20 --allreduce off --cabling "$PWD/tests/vm/two_rails.cabling" --timeout 20 --json "$OUT/$1.json"
  }
  # As built, nothing is named (VERBS_F_CLEAN=1; off by default: the masked runs assert every other
  # end honest, and part b's pairs are checked for it too).
  if [ "${VERBS_F_CLEAN:-0}" = 1 ]; then
    side_by_side start
    f_check f_clean
    side_by_side "as built"
    [ "$rc" -eq 0 ] || { fail "f_clean: exit $rc, expected 0"; show_log "$OUT/f_clean.log"; }
    [ -s "$OUT/f_clean.json" ] && { validate "$OUT/f_clean.json"; check masked "$OUT/f_clean.json" exit=0; }
  fi
  { tc qdisc add dev veth_a2 clsact &&
    tc filter add dev veth_a2 egress matchall action mirred egress redirect dev veth_a1; } || vm_die "tc redirect"
  for i in $(seq 1 "${VERBS_F_RUNS:-1}"); do
    side_by_side start
    f_check "f_masked_$i"
    side_by_side "masked $i"
    [ "$rc" -eq 1 ] || { fail "f_masked_$i: exit $rc, expected 1"; show_log "$OUT/f_masked_$i.log"; }
    [ -s "$OUT/f_masked_$i.json" ] &&
      { validate "$OUT/f_masked_$i.json"; check masked "$OUT/f_masked_$i.json" exit=1 port=a/rxe_a2:1; }
  done
  tc qdisc del dev veth_a2 clsact
  part_done f
fi

echo "== report checks"
t0=$SECONDS
args=()
[ ${#to_validate[@]} -eq 0 ] || args+=(validate "${to_validate[@]}")
args+=("${checks[@]}")
if [ ${#args[@]} -gt 0 ]; then
  /usr/bin/python3 tests/vm/verbs_check.py "${args[@]}" || fail "report checks (FAIL lines above)"
fi
vm_log "report checks done in $((SECONDS - t0))s"
echo
if [ ${#failures[@]} -eq 0 ]; then
  vm_log "verbs lane: PASS"
  exit 0
fi
echo "verbs lane: ${#failures[@]} failure(s):"
printf '  - %s\n' "${failures[@]}"
exit 1
