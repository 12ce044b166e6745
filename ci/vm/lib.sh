# shellcheck shell=bash
# ci/vm/lib.sh: helpers for scripts that run INSIDE the Soft-RoCE VM (through ci/vm/run).
# Source it from bash:  . "$(dirname "$0")/../../ci/vm/lib.sh"   (or by its repo path; the cwd
# inside the VM is the repo root, so `. ci/vm/lib.sh` works too).
#
# Topology (a), one host:  vm_rxe_one [DEV] [NETDEV] [CIDR]
#   dummy0 with 192.0.2.1/24 (TEST-NET-1, exists only inside the VM), lo up, rxe0 on dummy0.
#   Two processes on the same device talk over RDMA (out-of-band over 127.0.0.1).
# Topology (b), a real link:  vm_rxe_pair
#   veth_a (198.51.100.1) <-> veth_b (198.51.100.2) with rxe_a on veth_a and rxe_b on veth_b,
#   plus network namespaces ha and hb joined by their own veth pair (oob_a 203.0.113.1 in ha,
#   oob_b 203.0.113.2 in hb) for the ranks' TCP traffic (MPI, bootstrap).
#   RDMA traffic between rxe_a and rxe_b crosses the veth wire, so netem on veth_b impairs it:
#   vm_impair veth_b delay 5ms | rate 100mbit | loss 1%   (vm_impair_clear veth_b)
#   A root qdisc shapes what a veth SENDS: on veth_b it hits traffic from rxe_b to rxe_a (and
#   the ACKs of writes from rxe_a). To slow or drop the data of writes from rxe_a to rxe_b
#   (ib_write_bw with the client on rxe_a), impair veth_a. Delay shows up either way in latency.
#   Checked under TCG (ib_write_bw 64 KiB, rxe_a -> rxe_b): about 35 MB/s unimpaired; netem
#   rate 40mbit on veth_a 4.4 MB/s; tbf 20mbit 1.5-2.3 MB/s; netem loss 2% 1.75 MB/s; the same
#   qdiscs on veth_b changed nothing.
#
#   Why the rxe netdevs stay in the initial namespace: the Debian 12 kernel's rdma_rxe (6.1) does
#   its route lookups and opens its UDP port 4791 socket in the initial network namespace only.
#   With veth_a in ha and veth_b in hb, rxe_a/rxe_b come up ACTIVE but every RDMA write fails
#   ("Completion with error ... Failed status 2"). So both veth ends stay in the initial
#   namespace and policy routing sends traffic for the peer's own-host address out of the veth
#   (instead of the loopback shortcut), with accept_local so that the peer takes it.
#   RDMA devices are shared across namespaces ("rdma system" says "netns shared"), so a rank in
#   ha uses rxe_a and a rank in hb uses rxe_b (e.g. with --hca), both visible everywhere.
#
# perftest: vm_perftest NAME PORT SERVER CLIENT ADDR FIELD TOOL ARGS...  (see below)
# Other helpers: vm_wait_active DEV, vm_gid_index DEV [IPV4], vm_in_ns NS CMD..., vm_log.

VM_A_ADDR=198.51.100.1
VM_B_ADDR=198.51.100.2
VM_OOB_A_ADDR=203.0.113.1
VM_OOB_B_ADDR=203.0.113.2

vm_log() { echo "[vm $(cut -d' ' -f1 /proc/uptime)s] $*"; }
vm_die() { echo "vm: error: $*" >&2; exit 1; }

# vm_wait_active DEV [SECONDS]: waits until port 1 of DEV is ACTIVE.
vm_wait_active() {
  local dev=$1 limit=${2:-30} i=0 state
  while :; do
    state=$(cat "/sys/class/infiniband/$dev/ports/1/state" 2>/dev/null || true)
    case $state in *ACTIVE*) return 0 ;; esac
    [ "$i" -ge $((limit * 5)) ] && { echo "vm: $dev port 1 not ACTIVE after ${limit}s (state '$state')" >&2; return 1; }
    sleep 0.2
    i=$((i + 1))
  done
}

# vm_gid_index DEV [IPV4]: prints the index of DEV's port-1 GID that is RoCE v2 and IPv4-mapped
# (::ffff:a.b.c.d), the address matching IPV4 when given. RoCE v2 over IPv4 is what perftest/ibgpu
# need here; index 0 is usually the fe80:: link-local GID, which does not route over IPv4.
# Retries briefly: the IPv4 GID appears a moment after the address/device.
vm_gid_index() {
  local dev=$1 want=${2:-} port=/sys/class/infiniband/$1/ports/1 try f i gid type hex="" o1 o2 o3 o4
  if [ -n "$want" ]; then
    IFS=. read -r o1 o2 o3 o4 <<<"$want"
    hex=$(printf '%02x%02x:%02x%02x' "$o1" "$o2" "$o3" "$o4")
  fi
  for try in $(seq 1 50); do
    for f in "$port"/gids/*; do
      i=${f##*/}
      gid=$(cat "$f" 2>/dev/null) || continue
      case $gid in 0000:0000:0000:0000:0000:ffff:*) ;; *) continue ;; esac
      [ -n "$hex" ] && [ "${gid#0000:0000:0000:0000:0000:ffff:}" != "$hex" ] && continue
      type=$(cat "$port/gid_attrs/types/$i" 2>/dev/null) || continue
      [ "$type" = "RoCE v2" ] || continue
      echo "$i"
      return 0
    done
    sleep 0.2
  done
  echo "vm: no RoCE v2 IPv4 GID${want:+ for $want} on $dev; its GID table:" >&2
  for f in "$port"/gids/*; do
    i=${f##*/}
    gid=$(cat "$f" 2>/dev/null) || continue
    [ "$gid" = 0000:0000:0000:0000:0000:0000:0000:0000 ] && continue
    echo "  $i $gid $(cat "$port/gid_attrs/types/$i" 2>/dev/null)" >&2
  done
  return 1
}

# vm_rxe_one [DEV=rxe0] [NETDEV=dummy0] [CIDR=192.0.2.1/24]: topology (a).
# Sets VM_RXE_DEV, VM_RXE_ADDR, VM_RXE_GID (the RoCE v2 IPv4 GID index).
vm_rxe_one() {
  local dev=${1:-rxe0} netdev=${2:-dummy0} cidr=${3:-192.0.2.1/24}
  ip link set lo up
  ip link show "$netdev" >/dev/null 2>&1 || ip link add "$netdev" type dummy || return 1
  ip addr replace "$cidr" dev "$netdev" || return 1
  ip link set "$netdev" up || return 1
  [ -e "/sys/class/infiniband/$dev" ] ||
    rdma link add "$dev" type rxe netdev "$netdev" || { echo "vm: rdma link add $dev failed" >&2; return 1; }
  vm_wait_active "$dev" || return 1
  VM_RXE_DEV=$dev
  VM_RXE_ADDR=${cidr%/*}
  VM_RXE_GID=$(vm_gid_index "$dev" "$VM_RXE_ADDR") || return 1
  export VM_RXE_DEV VM_RXE_ADDR VM_RXE_GID
  vm_log "topology (a): $dev on $netdev $cidr, RoCE v2 IPv4 GID index $VM_RXE_GID"
}

# vm_rxe_pair: topology (b) (see the top of this file). Sets VM_GID_A / VM_GID_B.
# VM_PAIR_NETNS=0 skips the ha/hb namespaces (the RDMA link does not need them).
vm_rxe_pair() {
  local ma mb d
  ip link set lo up
  # In "exclusive" mode an RDMA device is only visible in its netdev's namespace, and ranks in
  # ha/hb would see none; the default "shared" mode shows every device in every namespace.
  case $(rdma system show netns 2>/dev/null) in
    *exclusive*) rdma system set netns shared || { echo "vm: cannot set rdma netns shared" >&2; return 1; } ;;
  esac
  sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
    net.ipv4.conf.all.accept_local=1 net.ipv4.conf.default.accept_local=1 >/dev/null || return 1
  ip link add veth_a type veth peer name veth_b || return 1
  for d in veth_a veth_b; do
    sysctl -qw "net.ipv4.conf.$d.rp_filter=0" "net.ipv4.conf.$d.accept_local=1" >/dev/null
  done
  ip addr add "$VM_A_ADDR/24" dev veth_a && ip addr add "$VM_B_ADDR/24" dev veth_b || return 1
  ip link set veth_a up && ip link set veth_b up || return 1
  ma=$(cat /sys/class/net/veth_a/address) mb=$(cat /sys/class/net/veth_b/address)
  # Both addresses are local: the local table (rule 0) would short-cut them over lo. Move the
  # local table after two rules that send locally made packets for the peer out of the veth.
  ip rule add pref 100 lookup local && ip rule del pref 0 || return 1
  ip route add "$VM_B_ADDR" dev veth_a src "$VM_A_ADDR" table 101 &&
    ip route add "$VM_A_ADDR" dev veth_b src "$VM_B_ADDR" table 102 || return 1
  ip rule add pref 10 iif lo to "$VM_B_ADDR" lookup 101 &&
    ip rule add pref 11 iif lo to "$VM_A_ADDR" lookup 102 || return 1
  ip neigh replace "$VM_B_ADDR" lladdr "$mb" dev veth_a nud permanent &&
    ip neigh replace "$VM_A_ADDR" lladdr "$ma" dev veth_b nud permanent || return 1
  { rdma link add rxe_a type rxe netdev veth_a && rdma link add rxe_b type rxe netdev veth_b; } ||
    { echo "vm: rdma link add rxe_a/rxe_b failed" >&2; return 1; }
  vm_wait_active rxe_a && vm_wait_active rxe_b || return 1
  VM_GID_A=$(vm_gid_index rxe_a "$VM_A_ADDR") && VM_GID_B=$(vm_gid_index rxe_b "$VM_B_ADDR") || return 1
  export VM_GID_A VM_GID_B VM_A_ADDR VM_B_ADDR
  if [ "${VM_PAIR_NETNS:-1}" != 0 ]; then
    ip netns add ha && ip netns add hb || return 1
    ip link add oob_a netns ha type veth peer name oob_b netns hb || return 1
    ip -n ha addr add "$VM_OOB_A_ADDR/24" dev oob_a && ip -n hb addr add "$VM_OOB_B_ADDR/24" dev oob_b || return 1
    ip -n ha link set lo up && ip -n ha link set oob_a up || return 1
    ip -n hb link set lo up && ip -n hb link set oob_b up || return 1
    export VM_OOB_A_ADDR VM_OOB_B_ADDR
  fi
  vm_log "topology (b): rxe_a on veth_a $VM_A_ADDR (GID $VM_GID_A) <-> rxe_b on veth_b $VM_B_ADDR (GID $VM_GID_B); rdma $(rdma system show netns 2>/dev/null | head -n1)"
}

# vm_in_ns NS CMD...: runs CMD in namespace NS (ha or hb).
vm_in_ns() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

# vm_impair NETDEV NETEM-ARGS...: e.g. vm_impair veth_b delay 5ms | rate 100mbit | loss 1%.
# It shapes what NETDEV sends (see the top of this file). The shorthands take [VALUE] [NETDEV],
# NETDEV defaulting to veth_b: vm_impair_delay 5ms, vm_impair_rate 100mbit veth_a, ...
vm_impair() { local d=$1; shift; tc qdisc replace dev "$d" root netem "$@"; }
vm_impair_delay() { vm_impair "${2:-veth_b}" delay "${1:-5ms}"; }
vm_impair_rate() { vm_impair "${2:-veth_b}" rate "${1:-100mbit}"; }
vm_impair_loss() { vm_impair "${2:-veth_b}" loss "${1:-1%}"; }
# vm_impair_tbf NETDEV RATE: a token-bucket rate limit (the same as lane 3 uses on the host).
vm_impair_tbf() { tc qdisc replace dev "$1" root tbf rate "${2:-200mbit}" burst 32kbit latency 50ms; }
vm_impair_clear() { tc qdisc del dev "${1:-veth_b}" root 2>/dev/null || true; }

# vm_perftest_pair NAME PORT SERVER CLIENT ADDR TOOL ARGS...
#   Runs a perftest TOOL (ib_write_bw, ib_write_lat, ...) server in the background and its client
#   once the server listens on PORT; the client connects out-of-band to ADDR (127.0.0.1 when
#   both are in the same namespace). SERVER and CLIENT are [NS:]DEV:GID, e.g. rxe0:1 or
#   hb:rxe_b:1. Logs: $VM_OUT/NAME.server.log and NAME.client.log. Fails with a message when
#   either side fails or times out (server 120 s, client 90 s).
vm_perftest_pair() {
  local name=$1 port=$2 srv=$3 cli=$4 addr=$5 tool=$6 dir=${VM_OUT:-/tmp} pid i=0 src=0 crc=0
  shift 6
  local sns="" cns="" sdev sgid cdev cgid
  case $srv in *:*:*) sns=${srv%%:*}; srv=${srv#*:} ;; esac
  case $cli in *:*:*) cns=${cli%%:*}; cli=${cli#*:} ;; esac
  sdev=${srv%%:*} sgid=${srv#*:} cdev=${cli%%:*} cgid=${cli#*:}
  ${sns:+ip netns exec "$sns"} timeout -k 5 120 "$tool" -d "$sdev" -x "$sgid" -p "$port" "$@" \
    >"$dir/$name.server.log" 2>&1 &
  pid=$!
  until ${sns:+ip netns exec "$sns"} ss -Hltn "sport = :$port" 2>/dev/null | grep -q .; do
    if ! kill -0 "$pid" 2>/dev/null || [ "$i" -ge 120 ]; then
      cat "$dir/$name.server.log" >&2
      echo "vm: $name: $tool server did not start listening on port $port" >&2
      kill "$pid" 2>/dev/null
      return 1
    fi
    sleep 0.5
    i=$((i + 1))
  done
  ${cns:+ip netns exec "$cns"} timeout -k 5 90 "$tool" -d "$cdev" -x "$cgid" -p "$port" "$@" "$addr" \
    >"$dir/$name.client.log" 2>&1 || crc=$?
  wait "$pid" || src=$?
  if [ "$crc" -ne 0 ] || [ "$src" -ne 0 ]; then
    { echo "--- $name client (exit $crc):"; cat "$dir/$name.client.log"
      echo "--- $name server (exit $src):"; cat "$dir/$name.server.log"; } >&2
    echo "vm: $name: $tool failed (client exit $crc, server exit $src)" >&2
    return 1
  fi
}

# vm_perftest NAME PORT SERVER CLIENT ADDR FIELD TOOL ARGS...
#   vm_perftest_pair, then sets VM_PT_LINE to the client's result line (the first numeric line
#   after the "#bytes" header) and checks that its FIELD-th column is a positive number.
#   perftest turns TSC cycles into time with a frequency it samples against gettimeofday; on a
#   busy host under TCG that sampling can fail ("Correlation coefficient r^2: ... < 0.9") and the
#   numbers come out as inf/nan although the transfer completed: such runs are repeated
#   (VM_PERFTEST_TRIES, default 4). In the guest, gettimeofday reads the HPET (the TSCs of the
#   two vCPUs look unsynchronized to the kernel) while perftest counts TSC cycles.
vm_perftest() {
  local name=$1 port=$2 srv=$3 cli=$4 addr=$5 field=$6 tool=$7 try v tries=${VM_PERFTEST_TRIES:-4}
  shift 7
  for try in $(seq 1 "$tries"); do
    vm_log "$tool $* ($srv <- $cli, try $try)"
    vm_perftest_pair "$name" "$port" "$srv" "$cli" "$addr" "$tool" "$@" || return 1
    VM_PT_LINE=$(awk '/#bytes/ { h = 1; next } h && $1 ~ /^[0-9]+$/ { print; exit }' \
      "${VM_OUT:-/tmp}/$name.client.log")
    if [ -z "$VM_PT_LINE" ]; then
      cat "${VM_OUT:-/tmp}/$name.client.log" >&2
      echo "vm: $name: $tool printed no result line" >&2
      return 1
    fi
    v=$(echo "$VM_PT_LINE" | awk -v f="$field" '{ print $f }')
    [[ $v =~ ^[0-9]+(\.[0-9]+)?$ ]] && [[ $v =~ [1-9] ]] && return 0
    echo "vm: $name: result line without usable numbers: $VM_PT_LINE" >&2
    grep -i 'correlation\|frequency' "${VM_OUT:-/tmp}/$name.client.log" >&2 || true
  done
  echo "vm: $name: $tool gave no usable numbers in $tries tries (perftest could not calibrate its clock)" >&2
  return 1
}
