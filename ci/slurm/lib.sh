# shellcheck shell=bash
# ci/slurm/lib.sh: a real Slurm cluster on one machine (Debian 12's Slurm 22.05): munged and
# slurmctld in the root network namespace, one slurmd per compute node, each node a network
# namespace with its own host name, joined by a bridge. Everything lives under one folder with a
# private slurm.conf (SLURM_CONF); nothing under /etc is touched. Source it from bash, as root.
#
#   slurm_require            exit 77 (skip) with one line when this machine cannot do it; installs
#                            the packages (ci/packages.sh) when they are missing
#   slurm_up DIR N [PROG INTERVAL]
#                            nodes s1..sN, idle; with PROG, slurmd runs it as HealthCheckProgram
#                            every INTERVAL seconds. Exports SLURM_CONF; sets SLURM_NODES, SLURM_DIR.
#                            With SLURM_LANE_CPU set (a taskset CPU list), every slurmd, so every task
#                            (TaskPlugin=task/none: tasks keep slurmd's affinity), runs there
#   slurm_down [DIR]         stops the daemons by their pid files, deletes the namespaces and the
#                            bridge (DIR: a cluster another process brought up)
#   slurm_node NAME          `scontrol show node -o NAME` (one line)
#   slurm_node_field NAME KEY  one field of it: State, Reason (to the end of the line)
#   slurm_in_node NAME CMD...  CMD inside node NAME's network and host name, as slurmd runs things
#
# Only one such cluster per machine: slurmctld listens on 0.0.0.0:6817. slurm_up waits for a lock
# (/run/lock/ibgpu-slurm-lane.lock, held by the calling shell until it exits or calls slurm_down)
# and refuses to start while another one's slurmctld still runs and its owner lives
# (/run/ibgpu-slurm-lane names its folder and owner; a cluster whose owner was killed, e.g. by a
# test timeout, is stopped first). Names (namespaces ibslurm-sK, bridge ibslurm0, veths ibslurm-vK, subnet 10.214.X.0/24)
# are apart from the netns lane's (ibgpu-<pid>-hK, ibgb<pid>, 10.213.X.0/24).

SLURM_LANE_PACKAGES=(slurmctld slurmd slurm-client munge libpmix-dev)
SLURM_LANE_LOCK=/run/lock/ibgpu-slurm-lane.lock
SLURM_LANE_REGISTRY=/run/ibgpu-slurm-lane
SLURM_LANE_BRIDGE=ibslurm0
SLURM_DIR=""
SLURM_NODES=()
SLURM_LANE_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

slurm_log() { echo "[slurm $(date +%T)] $*" >&2; }

slurm_require() {
  local why="" probe=ibslurm-probe-$$
  if [ "$(id -u)" -ne 0 ]; then
    why="not root (namespaces, a bridge, and slurmd as root)"
  elif ! command -v ip >/dev/null || ! command -v nsenter >/dev/null || ! command -v unshare >/dev/null ||
    ! command -v flock >/dev/null; then
    why="no ip (iproute2) or no nsenter/unshare/flock (util-linux)"
  elif ! ip netns add "$probe" 2>/dev/null; then
    why="cannot create a network namespace (ip netns add failed)"
  else
    ip netns del "$probe"
  fi
  if [ -n "$why" ]; then
    echo "SKIP: the Slurm lane needs root and network namespaces: $why"
    exit 77
  fi
  # shellcheck source=ci/packages.sh
  . "$SLURM_LANE_SRC/ci/packages.sh"
  install_packages ci/slurm "${SLURM_LANE_PACKAGES[@]}" || {
    echo "ci/slurm: error: could not install ${SLURM_LANE_PACKAGES[*]} (above)" >&2
    exit 1
  }
}

# The pid in pid file $1 when that process is alive.
slurm_live_pid() {
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

# A /24 in 10.214.0.0/16 that no interface or route here uses yet.
slurm_pick_subnet() {
  local used third
  used=$(ip -4 -o addr show; ip -4 route show)
  for third in $(seq 20 219); do
    grep -q "10\.214\.$third\." <<<"$used" || { echo "10.214.$third"; return 0; }
  done
  return 1
}

# Removes what a cluster whose owner is gone left behind (our fixed names only).
slurm_clean_stale() {
  local ns pid
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
    [[ $ns =~ ^ibslurm-s[0-9]+$ ]] || continue
    slurm_log "removing leftover namespace $ns"
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
    ip netns del "$ns" 2>/dev/null || true
  done
  ip link del "$SLURM_LANE_BRIDGE" 2>/dev/null || true
  rm -f "$SLURM_LANE_REGISTRY"
}

slurm_write_conf() {
  local dir=$1 ctl_addr=$2 base=$3 n=$4 hc_prog=${5:-} hc_interval=${6:-} k
  {
    cat <<EOF
# Written by ci/slurm/lib.sh for one test cluster; SLURM_CONF points here.
ClusterName=ibgpulane
SlurmctldHost=ibslurmctl($ctl_addr)
SlurmctldPort=6817
SlurmdPort=6818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/ctld
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdSpoolDir=$dir/spool/%n
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmdLogFile=$dir/log/slurmd-%n.log
TmpFS=$dir/tmp/%n
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=pmix
ReturnToService=2
SlurmdParameters=config_overrides
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
EOF
    if [ -n "$hc_prog" ]; then
      echo "HealthCheckProgram=$hc_prog"
      echo "HealthCheckInterval=$hc_interval"
      echo "HealthCheckNodeState=ANY"
    fi
    for k in $(seq 1 "$n"); do
      echo "NodeName=s$k NodeAddr=$base.$((10 + k)) CPUs=2 RealMemory=1000 State=UNKNOWN"
    done
    echo "PartitionName=lane Nodes=s[1-$n] Default=YES MaxTime=INFINITE State=UP"
  } >"$dir/slurm.conf"
}

slurm_up() {
  local dir=$1 n=$2 hc_prog=${3:-} hc_interval=${4:-} base k ns veth owner owner_dir waited
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  mkdir -p "${SLURM_LANE_LOCK%/*}"  # /run/lock: systemd makes it at boot; a bare root has none
  exec 8>"$SLURM_LANE_LOCK"
  if ! flock -w 300 8; then
    echo "ci/slurm: another Slurm lane cluster held $SLURM_LANE_LOCK for 300 s" >&2
    exit 1
  fi
  # The live cluster's folder and owner: the shell that tears it down on exit, or "-" for one
  # that ci/slurm/cluster brought up (it stays up until `ci/slurm/cluster down`).
  if read -r owner_dir owner 2>/dev/null <"$SLURM_LANE_REGISTRY" &&
    slurm_live_pid "$owner_dir/run/slurmctld.pid" >/dev/null; then
    if [ "$owner" = - ] || kill -0 "$owner" 2>/dev/null; then
      echo "ci/slurm: a Slurm lane cluster is up in $owner_dir: ci/slurm/cluster down $owner_dir" >&2
      exit 1
    fi
    slurm_log "stopping the cluster in $owner_dir: its owner (pid $owner) is gone"
    slurm_down "$owner_dir"
  fi
  slurm_clean_stale
  if ss -Hltn 'sport = :6817' 2>/dev/null | grep -q .; then
    echo "SKIP: port 6817 is in use here (a slurmctld of this machine?): the lane's controller needs it"
    exit 77
  fi
  SLURM_DIR=$dir
  echo "$dir ${SLURM_LANE_OWNER:-$$}" >"$SLURM_LANE_REGISTRY"
  # A folder used before starts afresh: no old key, controller state (jobs), spool or pid files.
  rm -rf "$dir"/{munge,ctld,run,spool,tmp}
  mkdir -p "$dir"/{munge,ctld,run,log,spool,tmp}
  chmod 755 "$dir"  # munged wants every folder above its socket searchable by all
  base=$(slurm_pick_subnet) || { echo "ci/slurm: no free 10.214.x.0/24" >&2; exit 1; }

  ip link add "$SLURM_LANE_BRIDGE" type bridge
  ip addr add "$base.1/24" dev "$SLURM_LANE_BRIDGE"
  ip link set "$SLURM_LANE_BRIDGE" up
  for k in $(seq 1 "$n"); do
    ns=ibslurm-s$k
    veth=ibslurm-v$k
    ip netns add "$ns"
    ip link add "$veth" type veth peer name eth0 netns "$ns"
    ip link set "$veth" master "$SLURM_LANE_BRIDGE" up
    ip -n "$ns" addr add "$base.$((10 + k))/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    ip -n "$ns" route add default via "$base.1"
    mkdir -p "$dir/spool/s$k" "$dir/tmp/s$k"
    SLURM_NODES+=("s$k")
  done

  slurm_write_conf "$dir" "$base.1" "$base" "$n" "$hc_prog" "$hc_interval"
  export SLURM_CONF=$dir/slurm.conf

  mungekey -c -k "$dir/munge/munge.key" 8>&-
  munged -S "$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" --log-file="$dir/log/munged.log" \
    --pid-file="$dir/run/munged.pid" --seed-file="$dir/munge/munge.seed" 8>&-
  # slurmctld and slurmd compare their host name with slurm.conf's names (UTS namespaces).
  # shellcheck disable=SC2016  # $1 is the inner shell's argument
  unshare --uts sh -c 'hostname ibslurmctl; exec slurmctld -f "$1"' sh "$SLURM_CONF" 8>&-
  # Not `ip netns exec`: it remounts /sys, and slurmd 22.05 then fails to start its cgroup plugin.
  local pin=()
  [ -z "${SLURM_LANE_CPU:-}" ] || pin=(taskset -c "$SLURM_LANE_CPU")
  for k in $(seq 1 "$n"); do
    # shellcheck disable=SC2016  # $1 and $2 are the inner shell's arguments
    nsenter --net="/run/netns/ibslurm-s$k" unshare --uts ${pin[@]+"${pin[@]}"} \
      sh -c 'hostname "$2"; exec slurmd -f "$1" -N "$2"' sh "$SLURM_CONF" "s$k" 8>&-
  done
  waited=0
  until slurm_all_idle; do
    if [ "$waited" -ge 300 ]; then  # tenths: 30 s
      slurm_log "nodes not idle after 30 s: $(sinfo -h -N -o '%N %T' 2>&1 | tr '\n' ' ')"
      slurm_show_logs
      exit 1
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  slurm_log "nodes ${SLURM_NODES[*]} idle ($base.0/24, SLURM_CONF=$SLURM_CONF)"
}

# True when every node is idle and responding ("idle", not "idle*" or "idle~").
slurm_all_idle() {
  local states
  states=$(sinfo -h -N -o '%T' 2>/dev/null) || return 1
  [ "$(grep -c '^idle$' <<<"$states")" -eq "${#SLURM_NODES[@]}" ]
}

slurm_show_logs() {
  local f
  for f in "$SLURM_DIR"/log/*.log; do
    [ -s "$f" ] || continue
    echo "--- last lines of $f" >&2
    tail -n 15 "$f" >&2
  done
}

slurm_node() { scontrol show node -o "$1"; }

# slurm_node_field NAME KEY: State= is one word; Reason= runs to the end of the line.
slurm_node_field() {
  local line
  line=$(slurm_node "$1") || return 1
  case $2 in
    Reason) sed -n 's/.* Reason=\(.*\)$/\1/p' <<<"$line" ;;
    *) tr ' ' '\n' <<<"$line" | sed -n "s/^$2=//p" ;;
  esac
}

slurm_in_node() {
  local node=$1
  shift
  # shellcheck disable=SC2016  # the inner shell's arguments
  nsenter --net="/run/netns/ibslurm-$node" unshare --uts sh -c 'hostname "$1"; shift; exec "$@"' sh "$node" "$@"
}

slurm_down() {
  local dir=${1:-$SLURM_DIR} f pid pids=() ns k alive=0 owner_dir
  [ -n "$dir" ] || return 0
  for f in "$dir"/run/slurmd-*.pid "$dir/run/slurmctld.pid" "$dir/run/munged.pid"; do
    pid=$(slurm_live_pid "$f") && pids+=("$pid") && kill "$pid" 2>/dev/null
  done
  for k in $(seq 1 50); do
    alive=0
    for pid in ${pids[@]+"${pids[@]}"}; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" -eq 0 ] && break
    sleep 0.1
  done
  [ "$alive" -eq 0 ] || kill -9 "${pids[@]}" 2>/dev/null || true
  # Job steps and health checks the daemons left behind, then the namespaces.
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
    [[ $ns =~ ^ibslurm-s[0-9]+$ ]] || continue
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
    ip netns del "$ns" 2>/dev/null || true
  done
  ip link del "$SLURM_LANE_BRIDGE" 2>/dev/null || true
  if read -r owner_dir _ 2>/dev/null <"$SLURM_LANE_REGISTRY" && [ "$owner_dir" = "$dir" ]; then
    rm -f "$SLURM_LANE_REGISTRY"
  fi
  SLURM_DIR=""
  SLURM_NODES=()
  exec 8>&-
  return 0
}
