# shellcheck shell=bash
# ci/netns/lib.sh: several "hosts" on one machine, each a network namespace with its own
# hostname, joined by a bridge; OpenMPI launches one rank per host through ci/netns/rsh-agent.
# Source it from bash (as root). See ci/netns/README.md.
#
#   netns_require            exit 77 (skip) with one line when this machine cannot do it
#   netns_up N               hosts h1..hN, each knowing the others' MAC addresses; installs the
#                            teardown trap; sets NETNS_* below (NETNS_SLOTS ranks on each, 1
#                            unless set before)
#   netns_mpirun LIMIT ARGS  mpirun over every host under a hard timeout; sets rc and elapsed
#   netns_limit_host K RATE  tbf on both ends of host K's veth: all its traffic is slow
#   netns_limit_pair A B RATE  only traffic between hosts A and B is slow (htb + u32)
#   netns_two_leaves K       hosts h(K+1)..hN onto a second bridge ("leaf 2"), joined to the
#                            first ("leaf 1") by a veth pair: the uplink
#   netns_limit_uplink RATE  tbf on both ends of that uplink: only pairs across the leaves are slow
#   netns_rank_pid K         pid of the ibgpu rank running in host K
#   netns_rank_talking K     true once that rank exchanges data with another host
#   netns_leftovers          what is still running in the run's namespaces (after a 10 s grace)
#   netns_down               kills what runs in our namespaces, deletes them (the trap calls it;
#                            it calls netns_before_down first when the caller defines one)
#
# Names carry the pid of the shell that made them (ibgpu-<pid>-hK, bridge ibgb<pid>), so a run
# that crashed leaves nothing the next run trips over: netns_up removes the leftovers of any
# run whose shell is gone.

NETNS_PREFIX=ibgpu
NETNS_ID=$$
NETNS_HOSTS=()       # namespace names, index K-1 for host hK
NETNS_ADDRS=()       # host addresses, same order
NETNS_BRIDGE=""
NETNS_BRIDGE2=""      # the second leaf, after netns_two_leaves
NETNS_UPLINK=""       # its end of the veth pair between the two bridges
NETNS_SUBNET=""      # e.g. 10.213.7.0/24
NETNS_BRIDGE_ADDR=""
NETNS_DIR=""         # scratch: hostfile, agent map
NETNS_SLOTS=${NETNS_SLOTS:-1}  # ranks per host
rc=0 elapsed=0      # set by netns_mpirun: mpirun's status, its seconds
NETNS_AGENT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/rsh-agent

netns_log() { echo "[netns $(date +%T)] $*" >&2; }

netns_require() {
  local why=""
  if [ "$(id -u)" -ne 0 ]; then
    why="not root (network namespaces, bridges and qdiscs need CAP_NET_ADMIN)"
  elif ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
    why="no ip/tc (iproute2)"
  elif ! command -v unshare >/dev/null; then
    why="no unshare (util-linux)"
  elif ! command -v mpirun >/dev/null; then
    why="no mpirun (openmpi-bin)"
  else
    local probe=${NETNS_PREFIX}-${NETNS_ID}-probe
    if ! ip netns add "$probe" 2>/dev/null; then
      why="cannot create a network namespace (ip netns add failed)"
    else
      ip netns del "$probe"
    fi
  fi
  if [ -n "$why" ]; then
    echo "SKIP: netns lane needs root and network namespaces: $why"
    exit 77
  fi
}

# Removes namespaces, bridges, /etc/netns folders and scratch folders of runs whose shell no
# longer exists.
netns_clean_stale() {
  local ns pid br dir
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
    [[ $ns =~ ^${NETNS_PREFIX}-([0-9]+)-h[0-9]+$ ]] || continue
    pid=${BASH_REMATCH[1]}
    kill -0 "$pid" 2>/dev/null && continue
    netns_log "removing leftover namespace $ns (its run, pid $pid, is gone)"
    netns_kill_in "$ns"
    ip netns del "$ns" 2>/dev/null || true
    rm -rf "/etc/netns/$ns"
  done
  for dir in "${TMPDIR:-/tmp}"/ibgpu-netns.*; do
    [[ $dir =~ /ibgpu-netns\.([0-9]+)\.[^/]*$ ]] || continue
    kill -0 "${BASH_REMATCH[1]}" 2>/dev/null || rm -rf "$dir"
  done
  for br in $(ip -o link show type bridge 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1); do
    [[ $br =~ ^ibg[bc]([0-9]+)$ ]] || continue
    kill -0 "${BASH_REMATCH[1]}" 2>/dev/null && continue
    netns_log "removing leftover bridge $br"
    ip link del "$br" 2>/dev/null || true
  done
  for br in $(ip -o link show type veth 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1); do
    [[ $br =~ ^ibgu([0-9]+)$ ]] || continue
    kill -0 "${BASH_REMATCH[1]}" 2>/dev/null && continue
    netns_log "removing leftover uplink $br"
    ip link del "$br" 2>/dev/null || true
  done
}

# SIGKILLs every process in namespace $1 (only our own namespaces are ever passed), then waits
# briefly for them to go.
netns_kill_in() {
  local ns=$1 pids=() _
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    mapfile -t pids < <(ip netns pids "$ns" 2>/dev/null || true)
    [ ${#pids[@]} -eq 0 ] && return 0
    # A stopped process is killed too (SIGKILL needs no SIGCONT).
    kill -9 "${pids[@]}" 2>/dev/null || true
    sleep 0.2
  done
  netns_log "warning: processes still in $ns: $(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')"
}

# A /24 in 10.213.0.0/16 that no interface or route here uses yet.
netns_pick_subnet() {
  local used k third
  used=$(ip -4 -o addr show; ip -4 route show)
  for k in $(seq 0 199); do
    third=$(((NETNS_ID + k) % 200 + 20))
    if ! grep -q "10\.213\.$third\." <<<"$used"; then
      echo "10.213.$third"
      return 0
    fi
  done
  return 1
}

netns_up() {
  local n=$1 k ns veth base
  netns_clean_stale
  trap 'netns_down' EXIT
  trap 'exit 130' INT TERM
  NETNS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/ibgpu-netns.$NETNS_ID.XXXXXX")
  base=$(netns_pick_subnet) || { echo "netns: no free 10.213.x.0/24" >&2; exit 1; }
  NETNS_SUBNET=$base.0/24
  NETNS_BRIDGE=ibgb$NETNS_ID
  NETNS_BRIDGE_ADDR=$base.1
  ip link add "$NETNS_BRIDGE" type bridge
  ip addr add "$NETNS_BRIDGE_ADDR/24" dev "$NETNS_BRIDGE"
  ip link set "$NETNS_BRIDGE" up
  : >"$NETNS_DIR/hostfile"
  : >"$NETNS_DIR/map"
  for k in $(seq 1 "$n"); do
    ns=${NETNS_PREFIX}-${NETNS_ID}-h$k
    veth=ibgv${NETNS_ID}h$k
    NETNS_HOSTS+=("$ns")
    NETNS_ADDRS+=("$base.$((10 + k))")
    ip netns add "$ns"
    ip link add "$veth" type veth peer name eth0 netns "$ns"
    ip link set "$veth" master "$NETNS_BRIDGE" up
    ip -n "$ns" addr add "$base.$((10 + k))/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    echo "$base.$((10 + k)) slots=$NETNS_SLOTS" >>"$NETNS_DIR/hostfile"
    echo "$base.$((10 + k)) $ns h$k" >>"$NETNS_DIR/map"
  done
  # `ip netns exec` bind-mounts /etc/netns/NS/hosts over /etc/hosts: every host knows the others
  # by name without touching the machine's own /etc/hosts.
  for ns in "${NETNS_HOSTS[@]}"; do
    mkdir -p "/etc/netns/$ns"
    { echo "127.0.0.1 localhost"; awk '{print $1, $3}' "$NETNS_DIR/map"; } >"/etc/netns/$ns/hosts"
  done
  netns_static_neighbours
  netns_log "hosts h1..h$n up on $NETNS_BRIDGE ($NETNS_SUBNET)"
}

# Every host knows every other host's MAC address from the start: permanent neighbour entries.
# The kernel's ARP table is one for all namespaces, and its learned entries are capped at
# net.ipv4.neigh.default.gc_thresh3 (1024) in all: 32 hosts that each learn 31 others overflow it
# ("neighbor table overflow!"), and OpenMPI's TCP connects then fail with EAGAIN. Permanent
# entries are exempt from that cap (Linux 5.0 and later), and the machine's sysctls stay as they
# are. A host whose link is down is then not "unreachable" at once: connects to it wait out their
# SYN retries, as they would across a switch.
netns_static_neighbours() {
  local k j mac=()
  for k in "${!NETNS_HOSTS[@]}"; do
    mac[k]=$(ip -n "${NETNS_HOSTS[k]}" -br link show dev eth0 | awk '{print $3}')
  done
  for k in "${!NETNS_HOSTS[@]}"; do
    for j in "${!NETNS_HOSTS[@]}"; do
      [ "$j" -eq "$k" ] || echo "neigh replace ${NETNS_ADDRS[j]} lladdr ${mac[j]} dev eth0 nud permanent"
    done | ip -n "${NETNS_HOSTS[k]}" -batch -
  done
}

netns_down() {
  local ns k
  # A caller's last word before the scratch folder goes (e.g. keeping the reports).
  if declare -F netns_before_down >/dev/null; then netns_before_down || true; fi
  for ns in "${NETNS_HOSTS[@]}"; do netns_kill_in "$ns"; done
  for k in "${!NETNS_HOSTS[@]}"; do
    ns=${NETNS_HOSTS[k]}
    ip netns del "$ns" 2>/dev/null || true
    rm -rf "/etc/netns/$ns"
  done
  if [ -n "$NETNS_UPLINK" ]; then ip link del "$NETNS_UPLINK" 2>/dev/null || true; fi
  if [ -n "$NETNS_BRIDGE2" ]; then ip link del "$NETNS_BRIDGE2" 2>/dev/null || true; fi
  [ -n "$NETNS_BRIDGE" ] && ip link del "$NETNS_BRIDGE" 2>/dev/null
  [ -n "$NETNS_DIR" ] && rm -rf "$NETNS_DIR"
  NETNS_HOSTS=()
  NETNS_BRIDGE=""
  NETNS_BRIDGE2=""
  NETNS_UPLINK=""
  NETNS_DIR=""
  return 0
}

# netns_mpirun LIMIT ARGS...: `mpirun ARGS` with NETNS_SLOTS ranks on each host, killed (and everything
# it started in the namespaces) after LIMIT seconds. Each host has one slot, so OpenMPI does not
# know that all ranks share this machine's cores and would busy-poll: with 4 ranks on 2 cores the
# ranks then starve each other and a clean veth measured 0.006-0.03 GB/s instead of 0.25-0.5;
# mpi_yield_when_idle makes waiting ranks give the CPU away. With NETNS_CPU set (a taskset CPU list),
# mpirun and everything it starts run on those CPUs only. Sets rc (mpirun's status; 124 or 137 after
# the timeout) and elapsed (seconds); never aborts the calling script.
netns_mpirun() {
  local limit=$1 started=$SECONDS pin=()
  shift
  [ -z "${NETNS_CPU:-}" ] || pin=(taskset -c "$NETNS_CPU")
  set +e
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 IBGPU_NETNS_MAP=$NETNS_DIR/map \
    timeout --kill-after=5 "$limit" ${pin[@]+"${pin[@]}"} mpirun --bind-to none -np "$((${#NETNS_HOSTS[@]} * NETNS_SLOTS))" \
    --hostfile "$NETNS_DIR/hostfile" \
    --mca plm_rsh_agent "$NETNS_AGENT" --mca plm_rsh_no_tree_spawn 1 \
    --mca btl tcp,self --mca btl_tcp_if_include "$NETNS_SUBNET" --mca oob_tcp_if_include "$NETNS_SUBNET" \
    --mca mpi_yield_when_idle 1 \
    "$@"
  rc=$?
  set -e
  elapsed=$((SECONDS - started))
  # After a timeout the daemons and ranks in the namespaces may be orphans: end them now so
  # the next scenario starts clean.
  if [ "$elapsed" -ge "$limit" ]; then
    netns_log "mpirun ran past ${limit}s (exit $rc): killing what is left in the namespaces"
    local ns
    for ns in "${NETNS_HOSTS[@]}"; do netns_kill_in "$ns"; done
  fi
  return 0
}

# Processes of ours still alive in any namespace after mpirun returned, as "pid command" lines.
# mpirun returns once every daemon has reported its ranks done, and a daemon exits just after it
# reported: on a loaded machine one was seen still exiting as mpirun returned. So what is left is
# read again for up to 10 s, and only what outlives that is a leftover.
netns_leftovers() {
  local ns pids tries=0
  while :; do
    pids=$(for ns in "${NETNS_HOSTS[@]}"; do ip netns pids "$ns" 2>/dev/null; done)
    if [ -z "$pids" ] || [ "$tries" -ge 100 ]; then break; fi
    tries=$((tries + 1))
    sleep 0.1
  done
  [ -z "$pids" ] || ps -o pid=,args= -p "$(echo "$pids" | paste -sd,)" 2>/dev/null || true
}

# netns_limit_host K RATE: a tbf on both ends of host K's veth, so what it sends and what it
# receives are both limited (the kernel here has tbf and htb, but no netem).
netns_limit_host() {
  local k=$1 rate=$2
  tc -n "${NETNS_HOSTS[k - 1]}" qdisc add dev eth0 root tbf rate "$rate" burst 64kb latency 100ms
  tc qdisc add dev "ibgv${NETNS_ID}h$k" root tbf rate "$rate" burst 64kb latency 100ms
}

# netns_unlimit_host K: removes what netns_limit_host K added.
netns_unlimit_host() {
  tc -n "${NETNS_HOSTS[$1 - 1]}" qdisc del dev eth0 root 2>/dev/null || true
  tc qdisc del dev "ibgv${NETNS_ID}h$1" root 2>/dev/null || true
}

# netns_limit_pair A B RATE: on each of the two hosts, an htb qdisc whose default class is not
# limited in practice and whose second class is limited to RATE, with a u32 filter that sends only
# packets for the other host's address there. Traffic with every other host is untouched. (This
# kernel has htb and u32, but neither prio nor flower.)
netns_limit_pair() {
  local a=$1 b=$2 rate=$3 self peer ns
  for self in "$a" "$b"; do
    peer=$([ "$self" = "$a" ] && echo "$b" || echo "$a")
    ns=${NETNS_HOSTS[self - 1]}
    tc -n "$ns" qdisc add dev eth0 root handle 1: htb default 10
    tc -n "$ns" class add dev eth0 parent 1: classid 1:10 htb rate 100gbit quantum 65536
    tc -n "$ns" class add dev eth0 parent 1: classid 1:20 htb rate "$rate" ceil "$rate" quantum 65536
    tc -n "$ns" filter add dev eth0 parent 1: protocol ip prio 1 u32 \
      match ip dst "${NETNS_ADDRS[peer - 1]}/32" flowid 1:20
  done
}

# netns_two_leaves K: two "leaf switches". Hosts h(K+1)..hN leave the first bridge for a second
# one (ibgc<pid>), and a veth pair (ibgu<pid> in the first, ibgw<pid> in the second) joins the two:
# pairs within a leaf cross one bridge, pairs across the leaves cross the uplink. One subnet, one
# layer 2 domain: addresses and names stay as netns_up made them. Deleting one end of the veth
# pair deletes both (netns_down; netns_clean_stale for a run that crashed).
netns_two_leaves() {
  local k=$1 h
  NETNS_BRIDGE2=ibgc$NETNS_ID
  NETNS_UPLINK=ibgu$NETNS_ID
  ip link add "$NETNS_BRIDGE2" type bridge
  ip link set "$NETNS_BRIDGE2" up
  ip link add "$NETNS_UPLINK" type veth peer name "ibgw$NETNS_ID"
  ip link set "$NETNS_UPLINK" master "$NETNS_BRIDGE" up
  ip link set "ibgw$NETNS_ID" master "$NETNS_BRIDGE2" up
  for h in $(seq $((k + 1)) "${#NETNS_HOSTS[@]}"); do
    ip link set "ibgv${NETNS_ID}h$h" nomaster
    ip link set "ibgv${NETNS_ID}h$h" master "$NETNS_BRIDGE2" up
  done
  netns_log "leaf 1: h1..h$k on $NETNS_BRIDGE; leaf 2: h$((k + 1))..h${#NETNS_HOSTS[@]} on $NETNS_BRIDGE2; uplink $NETNS_UPLINK"
}

# netns_limit_uplink RATE: a tbf on both ends of the uplink, so traffic across the leaves is
# limited both ways and traffic within a leaf is not.
netns_limit_uplink() {
  tc qdisc add dev "$NETNS_UPLINK" root tbf rate "$1" burst 64kb latency 100ms
  tc qdisc add dev "ibgw$NETNS_ID" root tbf rate "$1" burst 64kb latency 100ms
}

# netns_rank_pid K: the ibgpu process in host K (empty and status 1 when there is none).
netns_rank_pid() {
  local pid
  for pid in $(ip netns pids "${NETNS_HOSTS[$1 - 1]}" 2>/dev/null); do
    if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = ibgpu ]; then
      echo "$pid"
      return 0
    fi
  done
  return 1
}

# netns_rank_talking K: true once host K's rank has a TCP connection to another host's rank
# (MPI's TCP transport connects on first use: the rank is past MPI_Init and exchanging data).
netns_rank_talking() {
  local pid
  pid=$(netns_rank_pid "$1") || return 1
  ip netns exec "${NETNS_HOSTS[$1 - 1]}" ss -Htnp state established 2>/dev/null | grep -q "pid=$pid,"
}
