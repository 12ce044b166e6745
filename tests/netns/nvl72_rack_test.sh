#!/bin/bash
# One GB200 NVL72 rack end to end: eighteen namespace hosts h1..h18, each a compute tray with the
# gb200-tray sysfs tree (four GPUs, four ConnectX-7 NDR rails, no PCIe switch) and its own NVML
# (the test-only injection library, a scenario per host), `ibgpu check --profile gb200-nvl72-tray`
# over real MPI between them, with Slurm's block topology saying the eighteen are one block.
#   h4   not registered with the NVLink fabric     drain: GPU_FABRIC_NOT_REGISTERED on each GPU
#   h6   no IMEX channel0 (a reboot removed it)    drain: IMEX_CHANNEL_MISSING
#   h8   gpu1 link 7 slow, gpu2's registration     admit_degraded without gpu2, gpu3 and their rails
#        timed out, gpu3 link 11 down
#   h12  gpu0,1 in clique 32766, gpu2,3 in 32767   admit_degraded: NVLINK_DOMAIN_SPLIT (two domains)
#   h14  no nvidia-imex process                    drain: IMEX_SERVICE_DOWN
#   h16  every GPU in clique 32765                 admit_degraded: NVLINK_DOMAIN_SPLIT (not its block's)
#   the other twelve                               admit, each GPU with its own rail
#   block rack1: its NVLink domain holds 15 of the 18 trays (NVLINK_DOMAIN_SHORT)
# The profile is gb200-nvl72-tray as shipped for everything a tray has; only its network limits are
# the lane's (veth is no NDR fabric). The CUDA probes are left out (--skip gpu.cuda): no GPU here.
# Each host's IMEX files are a tree of its own (--imex-root): /proc/devices as the driver's, a real
# channel0 character device made with mknod, the daemon's process entry and its node list.
# Each host meets two peers (--pairs peers:2), so eighteen ranks stay light on two cores.
source "$(dirname "$0")/lib.sh"
hosts_up 18
gpu_nodes gb200-tray

# Each host's NVML scenario, by host name.
nvml=$IBGPU_SOURCE_DIR/tests/data/nvml
sed 's/^fabric_clique_id = 32766$/fabric_clique_id = 32765/' "$nvml/gb200_tray_healthy.toml" \
  >"$WORK/other_clique.toml"
grep -q '^fabric_clique_id = 32765$' "$WORK/other_clique.toml" || fail "could not write the other clique's scenario"
for i in $(seq 18); do
  case $i in
    4) scenario=$nvml/gb200_tray_unregistered.toml ;;
    8) scenario=$nvml/gb200_tray_links.toml ;;
    12) scenario=$nvml/gb200_tray_clique_split.toml ;;
    16) scenario=$WORK/other_clique.toml ;;
    *) scenario=$nvml/gb200_tray_healthy.toml ;;
  esac
  echo "$scenario" >"$WORK/scenario/h$i"
done

# Each tray's IMEX, as NVIDIA's IMEX guide sets it up: the channel device's major number from
# /proc/devices, channel0 made with it, the daemon running with the rack's eighteen addresses.
for i in $(seq 18); do
  imex=$WORK/imex/h$i
  mkdir -p "$imex/proc/1" "$imex/proc/2417" "$imex/dev/nvidia-caps-imex-channels" "$imex/etc/nvidia-imex"
  printf 'Character devices:\n  1 mem\n195 nvidia-frontend\n234 nvidia-caps-imex-channels\n508 nvidia-uvm\n\nBlock devices:\n  8 sd\n' \
    >"$imex/proc/devices"
  echo systemd >"$imex/proc/1/comm"
  [ "$i" = 14 ] || echo nvidia-imex >"$imex/proc/2417/comm"
  if [ "$i" != 6 ]; then
    mknod -m 0666 "$imex/dev/nvidia-caps-imex-channels/channel0" c 234 0 || fail "mknod: cannot make an IMEX channel"
  fi
  for j in $(seq 18); do echo "10.10.0.$j"; done >"$imex/etc/nvidia-imex/nodes_config.cfg"
done

# The rack as Slurm's block topology says it (topology/block): one block of eighteen trays.
printf 'BlockName=rack1 Nodes=h[1-18]\nBlockSizes=18\n' >"$WORK/topology.conf"

profile=$WORK/gb200-nvl72-tray-netns.toml
check_report "$IBGPU_SOURCE_DIR/profiles/gb200-nvl72-tray.toml" lane_profile "$IBGPU_SOURCE_DIR/tests/netns/lane.toml" \
  "$profile" || fail "could not write the lane's gb200-nvl72-tray profile"

out=$WORK/rack.json
ibgpu_on_hosts 180 check --profile "$profile" --skip gpu.cuda --transport mpi --topology "$WORK/topology.conf" \
  --pairs peers:2 --sizes 64K --window 16 --iters 10 --allreduce off --timeout 30 \
  --json "$out" >"$WORK/check.out" 2>"$WORK/check.log"
[ -s "$out" ] || fail "no report (exit $rc): $(tail -n 20 "$WORK/check.log")"
validate "$out"
check_report "$out" decisions "$rc" || fail "decisions not as expected (above; log: $WORK/check.log)"
echo "nvl72 rack: h4 drained (not registered), h6 and h14 drained (IMEX), h8 without gpu2 and gpu3, h12 and h16 split from the rack's domain, 12 trays admitted (exit $rc)"
