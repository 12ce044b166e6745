#!/usr/bin/env python3
"""ci/gpu/check's reading of its reports: summary.py HAS_GPU OUT_DIR SCHEMA.

Every report must be valid against the schema (where python3-jsonschema is installed; it says so
where it is not). With a GPU, the GPU steps must have run: NVML lists the GPU, the CUDA probes
measured it, the NCCL sweep ran to 4 GiB with no wrong element, and each GPU's NVLinks as ibgpu
read them from NVML (links, links up, the slowest speed) are what `nvidia-smi nvlink -s` lists
(the fabric registration is printed beside nvidia-smi's); the figures are printed. Without
one, each GPU step must be `skipped` with its reason. Exit 1 on any failed expectation, each
printed."""
import json
import os
import re
import sys

H200_MEM_BW_GBPS = 4800.0  # HBM3e, the data sheet's figure
problems = []


def expect(ok, text):
    if not ok:
        problems.append(text)
    return ok


def load(out, name, schema):
    path = os.path.join(out, name)
    if not expect(os.path.exists(path), f"{name}: no report"):
        return None
    with open(path) as f:
        report = json.load(f)
    try:
        import jsonschema
        with open(schema) as f:
            jsonschema.validate(report, json.load(f))
    except ImportError:
        pass
    except jsonschema.ValidationError as e:  # noqa: F821 (imported above)
        problems.append(f"{name}: not valid against the schema: {e.message}")
    return report


def probes(report, probe_id):
    return [p for p in report.get('probes', []) if p['id'] == probe_id] if report else []


def typical(metric):
    if metric is None:
        return None
    return metric['value'] if metric.get('value') is not None else (metric.get('summary') or {}).get('p50')


def nvlink_status(out):
    """{GPU index: [(link, speed in MB/s or None when inactive)]} from `nvidia-smi nvlink -s`
    ("GPU 0: ... / Link 3: 26.562 GB/s / Link 4: <inactive>"); None without the file."""
    path = os.path.join(out, 'nvlink-status.txt')
    if not os.path.exists(path):
        return None
    gpus, current = {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r'^GPU (\d+):', line)
            if m:
                current = gpus.setdefault(int(m.group(1)), [])
                continue
            m = re.match(r'^\s+Link (\d+): (.*)$', line)
            if m and current is not None:
                speed = re.match(r'([0-9.]+) GB/s', m.group(2).strip())
                current.append((int(m.group(1)), round(float(speed.group(1)) * 1000) if speed else None))
    return gpus


def fabric_states(out):
    """The Fabric sections' State lines of `nvidia-smi -q`, in GPU order."""
    path = os.path.join(out, 'nvidia-smi-q.txt')
    if not os.path.exists(path):
        return []
    with open(path) as f:
        text = f.read()
    return re.findall(r'^\s+Fabric\s*\n\s+State\s+:\s*(.+)$', text, re.M)


def check_nvlinks(check, out):
    """ibgpu's NVLink figures of each GPU against nvidia-smi's listing of the same links."""
    listed = nvlink_status(out)
    states = fabric_states(out)
    for p in probes(check, 'gpu.nvml.health'):
        if p['status'] != 'ok':
            continue
        index = int(p['scope']['devices'][0].removeprefix('gpu'))
        m = p['metrics']
        links, up, slowest = (typical(m.get(k)) for k in ('nvlink_links', 'nvlink_links_up', 'nvlink_speed_MBps_min'))
        fabric = p['params'].get('fabric_state', 'no state')
        smi_fabric = states[index].strip() if index < len(states) else 'not listed'
        print(f"  gpu{index} NVLinks: {links} links, {up} up, slowest {slowest} MB/s; fabric {fabric} "
              f"(nvidia-smi: {smi_fabric})")
        if listed is None:
            continue
        theirs = listed.get(index, [])
        speeds = [s for _, s in theirs if s is not None]
        expect((links or 0) == len(theirs), f"gpu{index}: ibgpu counts {links} NVLinks, nvidia-smi lists {len(theirs)}")
        expect((up or 0) == len(speeds), f"gpu{index}: ibgpu counts {up} NVLinks up, nvidia-smi {len(speeds)}")
        if speeds:
            expect(slowest is not None and abs(slowest - min(speeds)) <= 1,
                   f"gpu{index}: slowest NVLink {slowest} MB/s in ibgpu, {min(speeds)} in nvidia-smi")


def main():
    has_gpu, out, schema = sys.argv[1] == '1', sys.argv[2], sys.argv[3]
    try:
        import jsonschema  # noqa: F401 (load() uses it)
    except ImportError:
        print('  reports not validated against the schema: python3 has no jsonschema module here')
    inventory = load(out, 'inventory.json', schema)
    check = load(out, 'check.json', schema)
    allreduce = load(out, 'allreduce.json', schema)
    gpu_steps = probes(inventory, 'inventory.gpu') + [p for p in (check or {}).get('probes', [])
                                                        if p['id'].startswith('gpu.')]
    sweep = probes(allreduce, 'collective.nccl.all_reduce')
    if not has_gpu:
        for p in gpu_steps + sweep:
            expect(p['status'] == 'skipped' and p.get('reason'), f"{p['id']}: {p['status']} without a GPU, "
                   f"expected skipped with a reason")
        expect(gpu_steps and sweep, 'the GPU steps left no results to say why they did not run')
        for p in gpu_steps + sweep[:1]:
            print(f"  {p['id']}: skipped: {p.get('reason')}")
    else:
        host = inventory['hosts'][0] if inventory else {}
        expect(host.get('gpus'), 'NVML lists no GPU')
        for g in host.get('gpus', []):
            print(f"  GPU {g['index']}: {g['name']} at {g['pci_bus_id']}, {g['memory_total_GiB']} GiB")
        for pci in host.get('pci_gpus', []):
            print(f"  on the PCI bus: {pci['pci_address']} {pci['device_id']}, link {pci['pci_link']}")
        for p in gpu_steps:
            expect(p['status'] == 'ok', f"{p['id']} {p['scope']['devices']}: {p['status']}: "
                   f"{p.get('error') or p.get('reason')}")
        for p in probes(check, 'gpu.cuda.mem_bw'):
            bw = typical(p['metrics'].get('mem_bw_GBps'))
            if bw:
                print(f"  memory bandwidth {p['scope']['devices']}: {bw:.0f} GB/s, "
                      f"{bw / H200_MEM_BW_GBPS:.2f} of the H200's {H200_MEM_BW_GBPS:.0f} GB/s")
        for p in probes(check, 'gpu.cuda.copy_bw'):
            print(f"  pinned copies {p['scope']['devices']}: h2d {typical(p['metrics'].get('h2d_GBps'))} GB/s, "
                  f"d2h {typical(p['metrics'].get('d2h_GBps'))} GB/s")
        expect(sweep, 'no NCCL all-reduce results')
        sizes = []
        for p in sweep:
            expect(p['status'] == 'ok', f"all-reduce {p['params'].get('size_B')}: {p['status']}: "
                   f"{p.get('error') or p.get('reason')}")
            wrong = typical(p['metrics'].get('wrong_elements'))
            expect(not wrong, f"all-reduce {p['params'].get('size_B')}: {wrong} wrong elements")
            sizes.append(p['params'].get('size_B') or 0)
            if p['params'].get('size_B', 0) >= 1 << 26:
                print(f"  all-reduce {p['params']['size_B']} B {p['params'].get('mode', '')}: "
                      f"algbw {typical(p['metrics'].get('algbw_GBps'))} GB/s, "
                      f"{typical(p['metrics'].get('time_us'))} us")
        expect(max(sizes, default=0) >= 1 << 32, f"the sweep stopped at {max(sizes, default=0)} B, not 4 GiB")
        check_nvlinks(check, out)
        if check:
            print(f"  check: {check['summary']['state']}, exit {check['summary']['exit_code']}")
    for p in problems:
        print(f"ci/gpu/check: FAIL: {p}")
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
