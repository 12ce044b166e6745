#!/usr/bin/env python3
"""Writes the GPU-node sysfs fixture trees hgx-h100, hgx-h200, dgx-a100 and gb200-tray.

Each tree is a /sys in the kernel's own file formats: devices/pci0000:BB/... with one
directory per PCI function (root ports, switch ports, GPUs, HCAs, NVMe), bus/pci/devices
and class/infiniband symlinks, and devices/system for the CPUs and NUMA nodes. Bus numbers
are handed out depth first, as firmware does, so mlx5_N names follow bus order as the
kernel's probe order gives them. Where each topology comes from: README.md beside this file.

  make_topologies.py               rewrite the trees here
  make_topologies.py --check       exit 1 when a checked-in tree differs from what this writes
  make_topologies.py --answer-key  print each GPU's nearest compute HCA (the README table)
  make_topologies.py --tree NAME   print the PCI outline of one system
"""
import argparse
import filecmp
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field, replace
from typing import Optional

HERE = os.path.dirname(os.path.abspath(__file__))


# --- what a PCI function is ------------------------------------------------------------

@dataclass(frozen=True)
class Ids:
    vendor: int
    device: int
    subsystem_vendor: int
    subsystem_device: int
    class_code: int
    revision: int
    driver: str


@dataclass(frozen=True)
class Link:
    speed: str  # the kernel's text: "32.0 GT/s PCIe" is Gen5, "16.0 GT/s PCIe" Gen4
    width: int


GEN5_X16 = Link("32.0 GT/s PCIe", 16)
GEN4_X16 = Link("16.0 GT/s PCIe", 16)
GEN4_X4 = Link("16.0 GT/s PCIe", 4)


@dataclass(frozen=True)
class IbPort:
    link_layer: str  # InfiniBand or Ethernet
    rate: str        # e.g. "400 Gb/sec (4X NDR)"


@dataclass(frozen=True)
class Hca:
    role: str  # compute, storage or inband
    hca_type: str
    fw_ver: str
    board_id: str
    port: IbPort


@dataclass
class Function:
    """One PCI function; bridges carry the functions below them."""
    ids: Ids
    link: Link
    label: str = ""                     # gpu / hca / nvme / root port / switch
    hca: Optional[Hca] = None
    children: list = field(default_factory=list)  # slots below a bridge: lists of functions
    # filled in by number_buses()
    address: str = ""
    rel_path: str = ""
    secondary: int = 0
    subordinate: int = 0

    @property
    def is_bridge(self):
        return self.ids.class_code == 0x060400


@dataclass
class HostBridge:
    bus: int
    numa_node: int
    root_ports: list  # (device.function text, Function)
    domain: int = 0   # the PCI segment: Grace gives each root port a segment of its own


@dataclass
class System:
    name: str
    host: str
    cpus: int
    numa_cpulists: list  # index = NUMA node
    host_bridges: list
    guid_prefix: str     # first three groups of the node GUIDs
    compute_hcas: list   # the compute HCAs' names the published system has


# --- parts ------------------------------------------------------------------------------

def gpu(ids, link=GEN5_X16):
    return [Function(ids, link, "gpu")]


def hca(ids, link, *ports):
    """A NIC in one slot: one PCI function (one mlx5 device) per port, as mlx5 exposes them.
    A function in Ethernet mode has the Ethernet class, one in InfiniBand mode the IB class."""
    def ids_for(port):
        return replace(ids, class_code=0x020700 if port.port.link_layer == "InfiniBand" else 0x020000)
    return [Function(ids_for(port), link, "hca", hca=port) for port in ports]


def nvme():
    return [Function(SAMSUNG_PM1733, GEN4_X4, "nvme")]


def switch(ids, link, *slots):
    """A PCIe switch: its upstream port, one downstream port per slot below it."""
    down = Ids(ids.vendor, ids.device, ids.subsystem_vendor, ids.subsystem_device, 0x060400,
               ids.revision, "pcieport")
    up = Function(ids, link, "switch upstream")
    up.children = [[Function(down, link, "switch downstream", children=[slot])] for slot in slots]
    return [up]


def root_port(ids, link, slot):
    return Function(ids, link, "root port", children=[slot])


def bridge_ids(vendor, device, sub_vendor, sub_device, revision=0x0):
    return Ids(vendor, device, sub_vendor, sub_device, 0x060400, revision, "pcieport")


INTEL_SPR_ROOT_PORT = bridge_ids(0x8086, 0x352a, 0x8086, 0x0000, 0x04)
AMD_ROME_ROOT_PORT = bridge_ids(0x1022, 0x1483, 0x1022, 0x1234)
PEX89144_HGX = bridge_ids(0x1000, 0xc030, 0x1000, 0x100b, 0xb0)       # virtual up/down port
PEX89144_SUPERMICRO = bridge_ids(0x1000, 0xc030, 0x15d9, 0x1d25, 0xb0)
PEX88096 = bridge_ids(0x1000, 0xc010, 0x1000, 0xa096, 0xb0)

H100_SXM5 = Ids(0x10de, 0x2330, 0x10de, 0x16c1, 0x030200, 0xa1, "nvidia")
H200_SXM = Ids(0x10de, 0x2335, 0x10de, 0x18be, 0x030200, 0xa1, "nvidia")
A100_SXM4_80GB = Ids(0x10de, 0x20b2, 0x10de, 0x1463, 0x030200, 0xa1, "nvidia")
# The device and subsystem IDs the GB200 NVML scenarios give (tests/data/nvml/gb200_tray_*.toml).
GB200 = Ids(0x10de, 0x2941, 0x10de, 0x20d5, 0x030200, 0xa1, "nvidia")
GRACE_ROOT_PORT = bridge_ids(0x10de, 0x22b2, 0x10de, 0x0000)  # an NVIDIA root port (IDs as modelled)

CX7_NDR = Ids(0x15b3, 0x1021, 0x15b3, 0x0023, 0x020700, 0x0, "mlx5_core")
CX7_DUAL = Ids(0x15b3, 0x1021, 0x15b3, 0x0021, 0x020700, 0x0, "mlx5_core")
BF3_B3220 = Ids(0x15b3, 0xa2dc, 0x15b3, 0x0051, 0x020000, 0x1, "mlx5_core")
CX6_HDR = Ids(0x15b3, 0x101b, 0x15b3, 0x0007, 0x020700, 0x0, "mlx5_core")
CX6_DUAL = Ids(0x15b3, 0x101b, 0x15b3, 0x0009, 0x020700, 0x0, "mlx5_core")
SAMSUNG_PM1733 = Ids(0x144d, 0xa824, 0x144d, 0xa801, 0x010802, 0x0, "nvme")

NDR = IbPort("InfiniBand", "400 Gb/sec (4X NDR)")
NDR200 = IbPort("InfiniBand", "200 Gb/sec (2X NDR)")
HDR = IbPort("InfiniBand", "200 Gb/sec (4X HDR)")
ETH_200G = IbPort("Ethernet", "200 Gb/sec (4X HDR)")  # how the kernel words a 200GbE port
ETH_100G = IbPort("Ethernet", "100 Gb/sec (4X EDR)")


def cx7_compute():
    return hca(CX7_NDR, GEN5_X16, Hca("compute", "MT4129", "28.39.1002", "MT_0000000838", NDR))


def cx7_storage_card():
    """Dual-port ConnectX-7 of DGX H100 slots 1 and 2: port 1 storage IB, port 2 in-band Ethernet."""
    return hca(CX7_DUAL, GEN5_X16,
               Hca("storage", "MT4129", "28.39.1002", "MT_0000000834", NDR200),
               Hca("inband", "MT4129", "28.39.1002", "MT_0000000834", ETH_200G))


def bf3_card():
    return hca(BF3_B3220, GEN5_X16,
               Hca("storage", "MT41692", "32.39.1002", "MT_0000000884", ETH_200G),
               Hca("inband", "MT41692", "32.39.1002", "MT_0000000884", ETH_200G))


def cx6_compute():
    return hca(CX6_HDR, GEN4_X16, Hca("compute", "MT4123", "20.39.1002", "MT_0000000223", HDR))


def cx6_storage_card():
    return hca(CX6_DUAL, GEN4_X16,
               Hca("storage", "MT4123", "20.39.1002", "MT_0000000225", HDR),
               Hca("inband", "MT4123", "20.39.1002", "MT_0000000225", ETH_100G))


# --- the three systems ------------------------------------------------------------------

# DGX H100/H200 user guide, network modules table: the compute ports are these, GPU 0..7 in order.
DGX_H100_COMPUTE = [f"mlx5_{i}" for i in (0, 3, 4, 5, 6, 9, 10, 11)]


def hgx_h100():
    """Four PEX89144 switches, two per socket; each pairs two GPUs with their NICs in a
    virtual switch of their own, so a GPU is PIX to its NIC and PXB to its neighbour's."""
    def pair(gpu_ids):
        return switch(PEX89144_HGX, GEN5_X16, cx7_compute(), gpu(gpu_ids))

    def complex_(storage):
        # The storage card between the two pairs: bus order then names the HCAs as DGX H100
        # does, mlx5_0 for the first pair, mlx5_1/2 for the card, mlx5_3 for the second pair.
        slots = [pair(H100_SXM5)] + ([cx7_storage_card()] if storage else []) + [pair(H100_SXM5), nvme()]
        return switch(PEX89144_HGX, GEN5_X16, *slots)

    def rp(slot):
        return [("01.0", root_port(INTEL_SPR_ROOT_PORT, GEN5_X16, slot))]
    sapphire = ["0-55,112-167", "56-111,168-223"]
    return System("hgx-h100", "hgx-h100-01", 224, sapphire, [
        HostBridge(0x15, 0, rp(complex_(storage=True))),
        HostBridge(0x48, 0, rp(complex_(storage=False))),
        HostBridge(0x97, 1, rp(complex_(storage=True))),
        HostBridge(0xc7, 1, rp(complex_(storage=False))),
    ], "a088:c203:00b1", DGX_H100_COMPUTE)


def hgx_h200():
    """One PEX89xxx switch per GPU/NIC pair, each on a host bridge of its own; the in-band
    and storage NICs are BlueField-3 cards straight on root ports."""
    def pair_bridge(bus, numa):
        s = switch(PEX89144_SUPERMICRO, GEN5_X16, gpu(H200_SXM), cx7_compute())
        return HostBridge(bus, numa, [("01.0", root_port(INTEL_SPR_ROOT_PORT, GEN5_X16, s))])

    def nic_bridge(bus, numa):
        return HostBridge(bus, numa, [("01.0", root_port(INTEL_SPR_ROOT_PORT, GEN5_X16, bf3_card()))])

    # Host bridges in bus order; the BlueField-3 bridges sit between the first two pairs of
    # each socket so that bus order gives the DGX names (mlx5_1/2 and mlx5_7/8).

    sapphire = ["0-55,112-167", "56-111,168-223"]
    return System("hgx-h200", "hgx-h200-01", 224, sapphire, [
        pair_bridge(0x15, 0), nic_bridge(0x26, 0), pair_bridge(0x37, 0), pair_bridge(0x48, 0),
        pair_bridge(0x59, 0),
        pair_bridge(0x97, 1), nic_bridge(0xa7, 1), pair_bridge(0xb7, 1), pair_bridge(0xc7, 1),
        pair_bridge(0xd7, 1),
    ], "b83f:d203:0047", DGX_H100_COMPUTE)


def dgx_a100():
    """DGX A100: per socket two PEX88096 switches, each with two GPU/HCA pairs behind second-level
    switches and two NVMe drives; the dual-port storage ConnectX-6 sits on a root port. AMD Rome
    in NPS4 gives eight NUMA nodes."""
    def pair():
        return switch(PEX88096, GEN4_X16, gpu(A100_SXM4_80GB, GEN4_X16), cx6_compute())

    def complex_():
        return switch(PEX88096, GEN4_X16, pair(), pair(), nvme(), nvme())

    def rp(slot):
        return [("01.1", root_port(AMD_ROME_ROOT_PORT, GEN4_X16, slot))]
    rome = [f"{16 * n}-{16 * n + 15},{128 + 16 * n}-{128 + 16 * n + 15}" for n in range(8)]
    return System("dgx-a100", "dgx-a100-01", 256, rome, [
        HostBridge(0x00, 3, rp(complex_())),
        HostBridge(0x40, 1, rp(complex_())),
        HostBridge(0x60, 0, rp(cx6_storage_card())),
        HostBridge(0x80, 7, rp(complex_())),
        HostBridge(0xa0, 5, rp(complex_())),
    ], "0c42:a103:00f3", [f"mlx5_{i}" for i in (0, 1, 2, 3, 6, 7, 8, 9)])


def gb200_tray():
    """A GB200 NVL72 compute tray: two Grace CPUs (one NUMA node each, 72 cores, no SMT), each
    with two B200 GPUs and two ConnectX-7 NDR HCAs. Every device sits on a root port of its own
    PCI segment, with no PCIe switch: the GPUs at segments 8, 9 (Grace 0) and 0x18, 0x19
    (Grace 1), as the GB200 NVML scenarios give their bus IDs; the HCAs at segments 0, 2 and
    0x10, 0x12. A GPU and the HCAs of its Grace are NODE to each other (nvidia-smi topo's
    word), so a NUMA node's two GPUs share its two HCAs between them. The two BlueField-3
    cards of a tray (north-south and in-band) are left out."""
    def on_root_port(domain, numa, slot):
        return HostBridge(0x00, numa, [("00.0", root_port(GRACE_ROOT_PORT, GEN5_X16, slot))], domain)
    grace = ["0-71", "72-143"]
    return System("gb200-tray", "gb200-tray-01", 144, grace, [
        on_root_port(0x0000, 0, cx7_compute()), on_root_port(0x0002, 0, cx7_compute()),
        on_root_port(0x0008, 0, gpu(GB200)), on_root_port(0x0009, 0, gpu(GB200)),
        on_root_port(0x0010, 1, cx7_compute()), on_root_port(0x0012, 1, cx7_compute()),
        on_root_port(0x0018, 1, gpu(GB200)), on_root_port(0x0019, 1, gpu(GB200)),
    ], "c470:bd03:00a2", [f"mlx5_{i}" for i in range(4)])


SYSTEMS = [hgx_h100, hgx_h200, dgx_a100, gb200_tray]


# --- numbering --------------------------------------------------------------------------

def number_buses(system):
    """Depth first, as firmware enumerates: a bridge's secondary bus is the next free one."""
    def walk(domain, slot, bus, parent_path, next_bus):
        for fn_index, fn in enumerate(slot):
            fn.address = f"{domain:04x}:{bus:02x}:00.{fn_index}"
            fn.rel_path = f"{parent_path}/{fn.address}"
            next_bus = descend(domain, fn, next_bus)
        return next_bus

    def descend(domain, fn, next_bus):
        if not fn.is_bridge:
            return next_bus
        fn.secondary = next_bus
        next_bus += 1
        if fn.label == "switch upstream":
            # downstream ports are devices 0, 1, 2 ... on the upstream port's secondary bus
            for dev, (down,) in enumerate(fn.children):
                down.address = f"{domain:04x}:{fn.secondary:02x}:{dev:02x}.0"
                down.rel_path = f"{fn.rel_path}/{down.address}"
                next_bus = descend(domain, down, next_bus)
        else:
            for slot in fn.children:
                next_bus = walk(domain, slot, fn.secondary, fn.rel_path, next_bus)
        fn.subordinate = next_bus - 1
        return next_bus

    for hb in system.host_bridges:
        next_bus = hb.bus + 1
        for devfn, rp in hb.root_ports:
            rp.address = f"{hb.domain:04x}:{hb.bus:02x}:{devfn}"
            rp.rel_path = f"devices/pci{hb.domain:04x}:{hb.bus:02x}/{rp.address}"
            next_bus = descend(hb.domain, rp, next_bus)


def functions(system):
    """(host bridge, function) for every PCI function, in bus order."""
    def all_below(fn):
        yield fn
        for slot in fn.children:
            for child in slot:
                yield from all_below(child)

    for hb in system.host_bridges:
        for _, rp in hb.root_ports:
            for fn in all_below(rp):
                yield hb, fn


def name_hcas(system):
    """mlx5_N in probe order, which is bus order; the compute ones must come out as published."""
    hcas = sorted((fn for _, fn in functions(system) if fn.hca), key=lambda f: f.address)
    names = {fn.address: f"mlx5_{i}" for i, fn in enumerate(hcas)}
    compute = [names[fn.address] for fn in hcas if fn.hca.role == "compute"]
    if compute != system.compute_hcas:
        raise SystemExit(f"{system.name}: compute HCAs came out as {compute}, not {system.compute_hcas}")
    return names


# --- writing ----------------------------------------------------------------------------

def cpumask(cpulist, cpus):
    """The kernel's cpumask text: 32-bit hex words, most significant first, comma separated."""
    bits = 0
    for part in cpulist.split(","):
        lo, _, hi = part.partition("-")
        for cpu in range(int(lo), int(hi or lo) + 1):
            bits |= 1 << cpu
    words = (cpus + 31) // 32
    return ",".join(f"{(bits >> (32 * w)) & 0xffffffff:08x}" for w in reversed(range(words)))


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text + "\n")


def link(root, rel, target_rel):
    """A relative symlink at `rel` pointing at `target_rel` (both relative to the tree root)."""
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.symlink(os.path.relpath(os.path.join(root, target_rel), os.path.dirname(path)), path)


def write_function(root, system, hb, fn):
    base = fn.rel_path
    cpulist = system.numa_cpulists[hb.numa_node]
    attrs = {
        "vendor": f"0x{fn.ids.vendor:04x}",
        "device": f"0x{fn.ids.device:04x}",
        "subsystem_vendor": f"0x{fn.ids.subsystem_vendor:04x}",
        "subsystem_device": f"0x{fn.ids.subsystem_device:04x}",
        "class": f"0x{fn.ids.class_code:06x}",
        "revision": f"0x{fn.ids.revision:02x}",
        "numa_node": str(hb.numa_node),
        "local_cpulist": cpulist,
        "local_cpus": cpumask(cpulist, system.cpus),
        "current_link_speed": fn.link.speed,
        "current_link_width": str(fn.link.width),
        "max_link_speed": fn.link.speed,
        "max_link_width": str(fn.link.width),
        "enable": "1",
    }
    if fn.is_bridge:
        attrs["secondary_bus_number"] = str(fn.secondary)
        attrs["subordinate_bus_number"] = str(fn.subordinate)
    for name, value in attrs.items():
        write(root, f"{base}/{name}", value)
    link(root, f"{base}/subsystem", "bus/pci")
    link(root, f"{base}/driver", f"bus/pci/drivers/{fn.ids.driver}")
    link(root, f"bus/pci/drivers/{fn.ids.driver}/{fn.address}", base)
    link(root, f"bus/pci/devices/{fn.address}", base)


def write_hca(root, system, fn, name, index, lid):
    base = f"{fn.rel_path}/infiniband/{name}"
    h = fn.hca
    card_guid = index - fn_index(fn)  # both ports of a card share the system image GUID
    guid = f"{system.guid_prefix}:{0x4000 + index:04x}"
    values = {
        "node_guid": guid,
        "sys_image_guid": f"{system.guid_prefix}:{0x4000 + card_guid:04x}",
        "node_desc": f"{system.host} {name}",
        "node_type": "1: CA",
        "hca_type": h.hca_type,
        "hw_rev": "0x0",
        "fw_ver": h.fw_ver,
        "board_id": h.board_id,
    }
    for attr, value in values.items():
        write(root, f"{base}/{attr}", value)
    # The kernel's text, "../../../0000:1a:00.0": readers take the PCI address from its last part.
    os.symlink(f"../../../{fn.address}", os.path.join(root, base, "device"))
    ib = h.port.link_layer == "InfiniBand"
    port = {
        "state": "4: ACTIVE",
        "phys_state": "5: LinkUp",
        "rate": h.port.rate,
        "link_layer": h.port.link_layer,
        "lid": f"0x{lid:x}" if ib else "0x0",
        "sm_lid": "0x1" if ib else "0x0",
        "sm_sl": "0",
        "lid_mask_count": "0",
        "cap_mask": "0xa751e848" if ib else "0x04010000",
    }
    for attr, value in port.items():
        write(root, f"{base}/ports/1/{attr}", value)
    traffic = 10_000_000 + 7919 * index
    counters = dict.fromkeys([
        "VL15_dropped", "excessive_buffer_overrun_errors", "link_downed", "link_error_recovery",
        "local_link_integrity_errors", "port_rcv_constraint_errors", "port_rcv_errors",
        "port_rcv_remote_physical_errors", "port_rcv_switch_relay_errors",
        "port_xmit_constraint_errors", "port_xmit_discards", "symbol_error"], 0)
    counters.update({
        "port_rcv_data": traffic * 1024, "port_xmit_data": traffic * 1024 + 512,
        "port_rcv_packets": traffic, "port_xmit_packets": traffic + 3,
        "unicast_rcv_packets": traffic - 700, "unicast_xmit_packets": traffic - 697,
        "multicast_rcv_packets": 700, "multicast_xmit_packets": 700, "port_xmit_wait": 0,
    })
    for attr, value in counters.items():
        write(root, f"{base}/ports/1/counters/{attr}", str(value))
    link(root, f"class/infiniband/{name}", base)


def fn_index(fn):
    return int(fn.address.rsplit(".", 1)[1])


def write_system(system, root):
    number_buses(system)
    names = name_hcas(system)
    for hb, fn in functions(system):
        write_function(root, system, hb, fn)
    lid = 0x20
    for hb, fn in functions(system):
        if fn.hca:
            name = names[fn.address]
            write_hca(root, system, fn, name, int(name.split("_")[1]), lid)
            lid += 1
    nodes = len(system.numa_cpulists)
    for kind, text in (("cpu", f"0-{system.cpus - 1}"), ("node", f"0-{nodes - 1}")):
        write(root, f"devices/system/{kind}/online", text)
        write(root, f"devices/system/{kind}/possible", text)
    for node, cpulist in enumerate(system.numa_cpulists):
        write(root, f"devices/system/node/node{node}/cpulist", cpulist)


# --- the answer key ---------------------------------------------------------------------

def answer_key(system):
    """For each GPU (bus order, as NVML numbers them) the compute HCAs nearest first: the one
    sharing the deepest bridge, then the same NUMA node, then any; ties to one no earlier GPU
    took, then to the lower mlx5 index. Computed from the model, not read back from the tree."""
    number_buses(system)
    names = name_hcas(system)
    placed = [(hb, fn, fn.rel_path.split("/")[1:]) for hb, fn in functions(system)]
    gpus = [p for p in placed if p[1].label == "gpu"]
    compute = [p for p in placed if p[1].hca and p[1].hca.role == "compute"]
    rows = []
    taken = set()
    for index, (hb, g, gpath) in enumerate(gpus):
        def distance(candidate):
            chb, hca_fn, cpath = candidate
            shared = 0
            while shared + 1 < min(len(gpath), len(cpath)) and gpath[shared] == cpath[shared]:
                shared += 1
            mlx5_index = int(names[hca_fn.address].split("_")[1])
            # The paths start host bridge, root port: sharing more means sharing a switch.
            # Levels in nvidia-smi topo's words: PIX below one switch, PXB below nested ones.
            free = 1 if hca_fn.address in taken else 0
            if shared >= 2:
                level = "PIX" if gpath[:-2] == cpath[:-2] else "PXB"
                return (0, -shared, free, mlx5_index), f"same switch ({level})"
            if chb.numa_node == hb.numa_node:
                return (1, 0, free, mlx5_index), "same NUMA node (NODE)"
            return (2, 0, free, mlx5_index), "other (SYS)"
        ranked = sorted(compute, key=lambda c: distance(c)[0])
        best, runner_up = ranked[0], ranked[1]
        taken.add(best[1].address)
        rows.append((index, g.address, hb.numa_node, names[best[1].address], best[1].address,
                     distance(best)[1], f"{names[runner_up[1].address]}, {distance(runner_up)[1]}"))
    return rows


def print_tree(system):
    """An `lspci -tv`-like outline of the model, for the README."""
    number_buses(system)
    names = name_hcas(system)

    def show(fn, depth):
        what = fn.label
        if fn.hca:
            what = f"{names[fn.address]} ({fn.hca.role}, {fn.hca.port.link_layer}, {fn.hca.port.rate})"
        ids = f"[{fn.ids.vendor:04x}:{fn.ids.device:04x}]"
        print(f"{'  ' * depth}{fn.address} {ids} {what}")
        for slot in fn.children:
            for child in slot:
                show(child, depth + 1)

    for hb in system.host_bridges:
        print(f"pci{hb.domain:04x}:{hb.bus:02x} (NUMA {hb.numa_node})")
        for _, rp in hb.root_ports:
            show(rp, 1)


def print_answer_key():
    for make in SYSTEMS:
        system = make()
        print(f"{system.name}:")
        print("| GPU | PCI | NUMA | nearest compute HCA | its PCI | level | next nearest |")
        print("|---|---|---|---|---|---|---|")
        for row in answer_key(system):
            print("| {} | {} | {} | {} | {} | {} | {} |".format(*row))
        print()


# --- main -------------------------------------------------------------------------------

def same_tree(a, b):
    cmp = filecmp.dircmp(a, b)
    if cmp.left_only or cmp.right_only or cmp.funny_files:
        return False
    for name in cmp.common_files:
        pa, pb = os.path.join(a, name), os.path.join(b, name)
        if os.path.islink(pa) or os.path.islink(pb):
            if not (os.path.islink(pa) and os.path.islink(pb) and os.readlink(pa) == os.readlink(pb)):
                return False
        elif not filecmp.cmp(pa, pb, shallow=False):
            return False
    for name in cmp.common_dirs:
        pa, pb = os.path.join(a, name), os.path.join(b, name)
        if os.path.islink(pa) or os.path.islink(pb):
            if os.readlink(pa) != os.readlink(pb):
                return False
        elif not same_tree(pa, pb):
            return False
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the checked-in trees")
    parser.add_argument("--answer-key", action="store_true", help="print GPU -> nearest compute HCA")
    parser.add_argument("--tree", metavar="NAME", help="print the PCI outline of one system")
    args = parser.parse_args()
    if args.tree:
        for make in SYSTEMS:
            if make().name == args.tree:
                print_tree(make())
                return 0
        parser.error(f"no system {args.tree}")
    if args.answer_key:
        print_answer_key()
        return 0
    if args.check:
        stale = []
        with tempfile.TemporaryDirectory() as tmp:
            for make in SYSTEMS:
                system = make()
                write_system(system, os.path.join(tmp, system.name))
                if not same_tree(os.path.join(tmp, system.name), os.path.join(HERE, system.name)):
                    stale.append(system.name)
        for name in stale:
            print(f"{name}: differs from what make_topologies.py writes", file=sys.stderr)
        return 1 if stale else 0
    for make in SYSTEMS:
        system = make()
        target = os.path.join(HERE, system.name)
        shutil.rmtree(target, ignore_errors=True)
        write_system(system, target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
