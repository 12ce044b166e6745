#!/usr/bin/python3
"""Checks of the verbs lane (tests/vm/verbs_lane.sh) on ibgpu's JSON reports.

    verbs_check.py KIND FILE... [key=value...] [-- KIND FILE... [key=value...]]...

Each KIND checks the report(s) and prints what was measured (one line per probe); KIND
"validate" validates FILEs against reports/schema/report.schema.json (tests/tools/validate_json.py,
in this process: under TCG every python start costs seconds). Exits 1 after printing
"FAIL: ..." lines when an assertion failed. Ratios, not absolute numbers: under TCG emulation
absolute times and rates mean little, but an impairment on one path against an unimpaired one in
the same run does.
"""
import json
import math
import sys

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def load(path):
    with open(path) as f:
        return json.load(f)


def probes(report, pid):
    return [p for p in report.get("probes", []) if p.get("id") == pid]


def pair_of(p):
    return tuple(sorted(p["scope"]["hosts"]))


def fmt_lat(s):
    return "n=%d min %.1f p50 %.1f p90 %.1f p99 %.1f max %.1f us" % (
        s["n"], s["min"], s["p50"], s["p90"], s["p99"], s["max"])


def check_bw_probe(p, where):
    """The metrics of one ok write_bw probe agree with each other."""
    m = p.get("metrics", {})
    size = p["params"]["size_B"]
    gb = m.get("bw_avg_GBps")
    if not (isinstance(gb, (int, float)) and gb > 0 and math.isfinite(gb)):
        fail("%s: bw_avg_GBps %r is not a positive number" % (where, gb))
        return
    gbit = m.get("bw_avg_Gbps")
    if gbit is None or abs(gbit - 8 * gb) > 1e-6 * 8 * gb:
        fail("%s: bw_avg_Gbps %r is not 8 x bw_avg_GBps %r" % (where, gbit, gb))
    mpps = m.get("msg_rate_Mpps")
    want = gb * 1e3 / size  # GB/s * 1e9 / size = messages/s; / 1e6 = Mpps
    if mpps is None or abs(mpps - want) > 1e-6 * want:
        fail("%s: msg_rate_Mpps %r is not bw_avg_GBps / size (%r)" % (where, mpps, want))
    peak = m.get("bw_peak_GBps")
    # A peak is the best stretch of the run; the whole run is such a stretch, so it can not be
    # below the average. (tests/mpi/net_probe_test.sh asserts the same for the MPI transport.)
    if peak is not None and peak < gb * 0.999:
        fail("%s: bw_peak_GBps %.6g is below bw_avg_GBps %.6g" % (where, peak, gb))


def check_lat_stats(s, iters, where):
    ok = True
    if iters is not None and s.get("n") != iters - 2:
        fail("%s: lat_us.n %r, expected %d (%d samples less the 2 largest)" % (where, s.get("n"), iters - 2, iters))
        ok = False
    keys = ["min", "p50", "p90", "p99", "p999", "max"]
    vals = [s.get(k) for k in keys]
    if any(not isinstance(v, (int, float)) or not math.isfinite(v) for v in vals):
        fail("%s: lat_us has a missing or non-finite statistic: %r" % (where, s))
        return False
    if not (vals[0] > 0 and all(a <= b for a, b in zip(vals, vals[1:]))):
        fail("%s: lat_us not ordered 0 < min <= p50 <= p90 <= p99 <= p999 <= max: %r" % (where, s))
        ok = False
    if not (s["min"] <= s.get("mean", -1) <= s["max"]) or not (s.get("stddev", -1) >= 0):
        fail("%s: lat_us mean/stddev implausible: %r" % (where, s))
        ok = False
    return ok


def common_params(p, where, devices=None, gid=None):
    if p.get("status") != "ok":
        fail("%s: status %r (%s)" % (where, p.get("status"), p.get("error") or p.get("reason")))
        return False
    if p["params"].get("transport") != "verbs":
        fail("%s: params.transport %r" % (where, p["params"].get("transport")))
    if devices is not None and p["scope"].get("devices") != devices:
        fail("%s: scope.devices %r, expected %r" % (where, p["scope"].get("devices"), devices))
    if gid is not None and p["params"].get("gid_index") != gid:
        fail("%s: params.gid_index %r, expected %r" % (where, p["params"].get("gid_index"), gid))
    return True


def others_not_ok(report, allowed_ids):
    bad = [p for p in report.get("probes", []) if p.get("id") not in allowed_ids or p.get("status") != "ok"]
    for p in bad:
        fail("unexpected probe %s status %s: %s" % (p.get("id"), p.get("status"), p.get("error") or p.get("reason")))


def kv(args):
    out = {}
    for a in args:
        k, _, v = a.partition("=")
        out[k] = v
    return out


# --- topology (a): two hosts on rxe0 ---------------------------------------------------------------
def one_bw(path, gid, sizes):
    r = load(path)
    gid = int(gid)
    sizes = [int(s) for s in sizes.split(",")]
    got = probes(r, "net.verbs.write_bw")
    if sorted(p["params"].get("size_B") for p in got) != sorted(sizes):
        fail("write_bw sizes %r, expected %r" % ([p["params"].get("size_B") for p in got], sizes))
    others_not_ok(r, {"net.verbs.write_bw"})
    for p in got:
        where = "write_bw %s B" % p["params"].get("size_B")
        if p["scope"].get("hosts") != ["a", "b"]:
            fail("%s: scope.hosts %r" % (where, p["scope"].get("hosts")))
        if not common_params(p, where, ["rxe0:1", "rxe0:1"], gid):
            continue
        check_bw_probe(p, where)
        m = p["metrics"]
        print("  %-22s %8d B: %.4f GB/s = %.4f Gb/s, peak %s GB/s, %.6f Mpps (iters %s)" % (
            "net.verbs.write_bw", p["params"]["size_B"], m["bw_avg_GBps"], m["bw_avg_Gbps"],
            "%.4f" % m["bw_peak_GBps"] if "bw_peak_GBps" in m else "-", m["msg_rate_Mpps"],
            p["params"].get("iters")))
    if r.get("summary", {}).get("exit_code") != 0:
        fail("summary.exit_code %r" % r.get("summary", {}).get("exit_code"))


def one_lat(path, gid, iters):
    r = load(path)
    gid = int(gid)
    iters = int(iters)
    w = probes(r, "net.verbs.write_lat")
    if len(w) != 1:
        fail("%d net.verbs.write_lat probes, expected 1" % len(w))
    others_not_ok(r, {"net.verbs.write_lat", "net.verbs.send_lat"})
    for p in w + probes(r, "net.verbs.send_lat"):
        where = "%s %s B" % (p["id"], p["params"].get("size_B"))
        if p["scope"].get("hosts") != ["a", "b"]:
            fail("%s: scope.hosts %r" % (where, p["scope"].get("hosts")))
        if p["params"].get("size_B") != 8:
            fail("%s: size_B %r" % (where, p["params"].get("size_B")))
        if not common_params(p, where, ["rxe0:1", "rxe0:1"], gid):
            continue
        s = p["metrics"]["lat_us"]
        check_lat_stats(s, iters, where)
        print("  %-22s %8d B: %s" % (p["id"], p["params"]["size_B"], fmt_lat(s)))


# --- topology (b): hosts a, b, c; only the a-b pair is impaired -------------------------------
PAIR_DEVICES = {("a", "b"): ["rxe_a:1", "rxe_b:1"], ("a", "c"): ["rxe_a:1", "rxe_a:1"],
                ("b", "c"): ["rxe_b:1", "rxe_a:1"]}
IMPAIRED = ("a", "b")


def by_pair(r, pid, where):
    out = {}
    for p in probes(r, pid):
        pair = pair_of(p)
        w = "%s %s" % (pid, "-".join(pair))
        if pair in out:
            fail("%s: reported twice" % w)
        out[pair] = p
        common_params(p, w, PAIR_DEVICES.get(pair))
    if sorted(out) != sorted(PAIR_DEVICES):
        fail("%s: %s pairs %r, expected %r" % (where, pid, sorted(out), sorted(PAIR_DEVICES)))
    return out


def pair_lat(path, delay_ms, iters):
    r = load(path)
    delay_us = float(delay_ms) * 1000
    iters = int(iters)
    others_not_ok(r, {"net.verbs.write_lat", "net.verbs.send_lat"})
    ids = ["net.verbs.write_lat"] + (["net.verbs.send_lat"] if probes(r, "net.verbs.send_lat") else [])
    for pid in ids:
        got = by_pair(r, pid, "latency")
        stats = {}
        for pair, p in sorted(got.items()):
            if p.get("status") != "ok":
                continue
            s = p["metrics"]["lat_us"]
            if check_lat_stats(s, iters, "%s %s" % (pid, "-".join(pair))):
                stats[pair] = s
            print("  %-20s %s %-5s %s%s" % (pid, "-".join(pair), "/".join(d.split(":")[0] for d in p["scope"]["devices"]),
                                          fmt_lat(s), "   <- netem delay %gms" % float(delay_ms) if pair == IMPAIRED else ""))
        if IMPAIRED not in stats or len(stats) != 3:
            continue
        imp = stats[IMPAIRED]
        rest = {k: v for k, v in stats.items() if k != IMPAIRED}
        worst = max(v["p50"] for v in rest.values())
        best = min(v["p50"] for v in rest.values())
        # A sample is half a round trip, and the delay is on one direction: at least D/2 each.
        if imp["min"] < 0.9 * delay_us / 2:
            fail("%s: impaired a-b min %.1f us < 0.9 x %.0f us (half the one-way netem delay)" % (pid, imp["min"], delay_us / 2))
        for pair, s in rest.items():
            if s["min"] >= 0.5 * delay_us / 2:
                fail("%s: unimpaired %s min %.1f us looks delayed too (>= %.0f us)" % (pid, "-".join(pair), s["min"], 0.5 * delay_us / 2))
        print("  %-20s impaired a-b p50 / unimpaired p50: %.1fx the best, %.1fx the same-wire b-c, %.1fx the worst; "
              "min: %.1fx the largest unimpaired min" % (
                  pid, imp["p50"] / best, imp["p50"] / stats[("b", "c")]["p50"], imp["p50"] / worst,
                  imp["min"] / max(v["min"] for v in rest.values())))
        if not imp["p50"] > 5 * best:
            fail("%s: impaired a-b p50 %.1f us is not > 5 x the best unimpaired p50 %.1f us" % (pid, imp["p50"], best))
        # Minima shrug off the scheduling noise of 3 ranks on 2 emulated CPUs (an odd round's idle
        # rank spins while it waits), which can push an unimpaired p50 to several ms.
        for pair, s in rest.items():
            if not imp["min"] > 5 * s["min"]:
                fail("%s: impaired a-b min %.1f us is not > 5 x the unimpaired %s min %.1f us" % (
                    pid, imp["min"], "-".join(pair), s["min"]))


def rail_bytes(r):
    """{(host, port, side): (share, params.ports)} of the report's net.verbs.rail_bytes results."""
    out = {}
    for p in probes(r, "net.verbs.rail_bytes"):
        key = (p["scope"]["hosts"][0], p["scope"]["devices"][0], p["params"].get("side"))
        out[key] = (p.get("metrics", {}).get("port_share"), p["params"].get("ports", {}), p.get("status"))
    return out


def honest_rails(r, name):
    """Every pair on its own port: each end counted at least the bytes written, none is masked."""
    for (host, port, side), (share, _, status) in sorted(rail_bytes(r).items()):
        if status != "ok" or share is None or share < 0.9:
            fail("%s: %s %s (%s) counted share %r (%s) of its pair's bytes, wanted >= 0.9" % (
                name, host, port, side, share, status))


def masked(path, want_exit, masked_port=None):
    """Two rails per host; with masked_port (host/port) that rail's bytes left through the host's
    other rail. What the operator acts on: that port failed for RAIL_MASKED and its node admitted
    without it (exit 1), nothing else named; without it, nothing named at all (exit 0)."""
    r = load(path)
    for (host, port, side), (share, ports, status) in sorted(rail_bytes(r).items()):
        mine = {k: v for k, v in ports.items() if k.split(":")[0][-2:-1] == host}  # rxe_<host><rail>:1
        print("  rail_bytes %s %-9s %-6s share %s; its host's ports counted %s" % (
            host, port, side, "%.3f" % share if share is not None else status,
            ", ".join("%s %.1f MB" % (k, v / 1e6) for k, v in sorted(mine.items()))))
    bad = {"%s %s" % (v["entity"]["kind"], v["entity"]["id"]): (v["state"], sorted(
        x["code"] for x in v.get("reasons", []))) for v in r.get("verdicts", []) if v.get("state") != "healthy"}
    print("  verdicts not healthy: %r; exit %s" % (bad, r.get("summary", {}).get("exit_code")))
    want = {}
    if masked_port:
        host, port = masked_port.split("/")
        want = {"hca_port %s/%s" % (host, port): ("failed", ["RAIL_MASKED"]), "node %s" % host: ("degraded", [])}
    got = {k: (state, codes if k.startswith("hca_port") else []) for k, (state, codes) in bad.items()}
    if got != want:
        fail("wanted exactly %r named, got %r" % (want, bad))
    if r.get("summary", {}).get("exit_code") != int(want_exit):
        fail("summary.exit_code %r, wanted %s" % (r.get("summary", {}).get("exit_code"), want_exit))
    orders = r.get("work_orders", [])
    for o in orders:
        print("  work order: %s: %s; %s; next: %s" % (o.get("cable"), o.get("state"), o.get("shortfall"), o.get("next")))
        for u in o.get("unread", []):
            print("    not read: %s" % u)
    want_orders = []
    if masked_port:
        host, port = masked_port.split("/")
        rail = port.split(":")[0][-1]
        want_orders = [("%s %s <-> rail%s port 1" % (host, port, rail), [{"kind": "hca_port", "id": masked_port}])]
    if [(o.get("cable"), o.get("entities")) for o in orders] != want_orders:
        fail("wanted the work orders %r, got %r" % (want_orders, orders))
    if masked_port and orders and not orders[0].get("next", "").startswith("the rail's bytes left through another port"):
        fail("the masked rail's work order says %r" % orders[0].get("next"))
    shares = rail_bytes(r)
    if len(shares) != 4:
        fail("wanted net.verbs.rail_bytes from both ends of both rails' pairs: %r" % sorted(shares))
    for (host, port, side), (share, _, status) in shares.items():
        named = masked_port == "%s/%s" % (host, port)
        if status != "ok" or share is None or (share >= 0.1 if named else share < 0.9):
            fail("%s %s (%s): share %r (%s), wanted %s" % (host, port, side, share, status,
                                                          "< 0.1 (masked)" if named else ">= 0.9"))


def pair_bw(base_path, imp_path, rate_mbit):
    base = load(base_path)
    imp = load(imp_path)
    rate_GBps = float(rate_mbit) * 1e6 / 8 / 1e9
    res = {}
    for name, r in (("baseline", base), ("rate-limited", imp)):
        others_not_ok(r, {"net.verbs.write_bw", "net.verbs.rail_bytes"})
        honest_rails(r, name)
        got = by_pair(r, "net.verbs.write_bw", name)
        res[name] = {}
        for pair, p in sorted(got.items()):
            if p.get("status") != "ok":
                continue
            check_bw_probe(p, "%s write_bw %s" % (name, "-".join(pair)))
            gb = p["metrics"].get("bw_avg_GBps", 0)
            res[name][pair] = gb
            print("  %-13s write_bw %s %-5s %8d B: %.5f GB/s%s" % (
                name, "-".join(pair), "/".join(d.split(":")[0] for d in p["scope"]["devices"]), p["params"]["size_B"], gb,
                "   <- tbf %g mbit" % float(rate_mbit) if name != "baseline" and pair == IMPAIRED else ""))
    b, i = res["baseline"], res["rate-limited"]
    if IMPAIRED not in b or IMPAIRED not in i or len(i) != 3:
        fail("bandwidth: missing pairs (baseline %r, rate-limited %r)" % (sorted(b), sorted(i)))
        return
    rest = min(v for k, v in i.items() if k != IMPAIRED)
    print("  rate-limited a-b bw: %.1fx below its baseline, %.1fx below the slowest unimpaired pair of the same run" % (
        b[IMPAIRED] / i[IMPAIRED], rest / i[IMPAIRED]))
    if not i[IMPAIRED] * 3 < b[IMPAIRED]:
        fail("rate-limited a-b bw %.5f GB/s is not 3x below its baseline %.5f GB/s" % (i[IMPAIRED], b[IMPAIRED]))
    if not i[IMPAIRED] * 2 < rest:
        fail("rate-limited a-b bw %.5f GB/s is not 2x below the slowest unimpaired pair %.5f GB/s" % (i[IMPAIRED], rest))
    if not i[IMPAIRED] <= 1.1 * rate_GBps:
        fail("rate-limited a-b bw %.5f GB/s exceeds the %g mbit limit (%.5f GB/s)" % (i[IMPAIRED], float(rate_mbit), rate_GBps))


# --- a peer killed mid-probe, usage errors ---------------------------------------------------------
def killed(path, host):
    r = load(path)
    print("  exit_code %s, probes:" % r.get("summary", {}).get("exit_code"))
    for p in r.get("probes", []):
        print("    %-20s %-8s hosts %-9s %s" % (p.get("id"), p.get("status"), ",".join(p["scope"].get("hosts", [])),
                                                p.get("error") or p.get("reason") or ""))
    # mpirun's teardown after the kill is a stop signal: the run is then interrupted, and the lost
    # peer is named in `skipped` results (unknown, never failed) instead of `timeout` ones.
    interrupted = r.get("run", {}).get("interrupted") is True
    wanted = ("timeout", "skipped") if interrupted else ("timeout",)
    naming = [p for p in r.get("probes", []) if p.get("status") in wanted and host in p["scope"].get("hosts", [])
              and ("host " + host) in (p.get("error") or p.get("reason") or "")]
    if not naming:
        fail("no %s result naming host %s" % ("/".join(wanted), host))
    if interrupted and any(p.get("status") in ("timeout", "error") for p in r.get("probes", [])):
        fail("an interrupted run kept a timeout or error: what the stop cut short is unknown")
    if r.get("summary", {}).get("exit_code") in (0, None):
        fail("summary.exit_code %r after a lost rank" % r.get("summary", {}).get("exit_code"))


def controls(path):
    """Rank 1's verbs setups failed by the hidden test option (ibgpu's fault, not the port's): each
    end's port wrote to itself and passed, so the pair's error is unknown for the instrument, never
    failed. What the operator acts on: exit 3, no node drained or degraded, the link's reason."""
    r = load(path)
    loops = [p for p in r.get("probes", []) if p.get("id") == "net.verbs.loopback"]
    for p in loops:
        print("  control %s %s: %s, %s bytes checked, %s wrong; of %s" % (
            ",".join(p["scope"]["hosts"]), ",".join(p["scope"]["devices"]), p.get("status"),
            p.get("metrics", {}).get("checked"), p.get("metrics", {}).get("wrong"),
            p.get("params", {}).get("control_of")))
    # One control an end for each round whose pair ended in an error (the first pass and the re-test).
    rounds = sorted({p.get("params", {}).get("round") for p in r.get("probes", [])
                     if p.get("id", "").startswith("net.verbs.") and p.get("status") == "error"})
    ran = sorted((p["params"]["control_of"]["round"], p["scope"]["hosts"][0]) for p in loops)
    if ran != sorted((k, h) for k in rounds for h in ("a", "b")) or any(p.get("status") != "ok" for p in loops):
        fail("wanted a passing loopback control on a and b for each round in error %r: %r" % (rounds, loops))
    errors = [p for p in r.get("probes", []) if p.get("id", "").startswith("net.verbs.") and p.get("status") == "error"]
    if not errors or any(p.get("params", {}).get("control", {}).get("reproduced") is not False for p in errors):
        fail("wanted the pair's errors marked not reproduced: %r" % [p.get("params", {}).get("control") for p in errors])
    s = r.get("summary", {})
    if s.get("exit_code") != 3 or s.get("drain") or s.get("admit_degraded"):
        fail("summary: exit %r, drain %r, admit_degraded %r (wanted 3, none, none)"
             % (s.get("exit_code"), s.get("drain"), s.get("admit_degraded")))
    link = [v for v in r.get("verdicts", []) if v.get("entity", {}).get("kind") == "link"]
    codes = sorted({x.get("code") for v in link for x in v.get("reasons", [])})
    states = sorted({v.get("state") for v in link})
    print("  link verdicts: %s %s; summary exit %s" % (states, codes, s.get("exit_code")))
    if states != ["unknown"] or codes != ["PROBE_ERROR_NOT_REPRODUCED"]:
        fail("wanted the link unknown for PROBE_ERROR_NOT_REPRODUCED alone: %r" % link)
    if any(v.get("state") == "failed" for v in r.get("verdicts", [])):
        fail("a verdict is failed for ibgpu's own fault: %r" % [v for v in r["verdicts"] if v.get("state") == "failed"])


def usage(path):
    r = load(path)
    if r.get("summary", {}).get("exit_code") != 64 or r.get("error", {}).get("kind") != "usage":
        fail("JSON error document: %r" % {k: r.get(k) for k in ("summary", "error")})
    else:
        print("  JSON error document: %s" % r["error"].get("message"))


def validate(files):
    sys.path.insert(0, "tests/tools")
    import validate_json  # noqa: E402  (tests/tools is not a package)
    if validate_json.main(["validate_json", "reports/schema/report.schema.json"] + files) != 0:
        fail("schema validation of %s" % " ".join(files))


def run(kind, args):
    print("-- %s %s" % (kind, " ".join(a.rsplit("/", 1)[-1] for a in args)))
    files = [a for a in args if "=" not in a]
    opts = kv(a for a in args if "=" in a)
    try:
        if kind == "validate":
            validate(files)
        elif kind == "one-bw":
            one_bw(files[0], opts["gid"], opts["sizes"])
        elif kind == "one-lat":
            one_lat(files[0], opts["gid"], opts["iters"])
        elif kind == "pair-lat":
            pair_lat(files[0], opts["delay_ms"], opts["iters"])
        elif kind == "pair-bw":
            pair_bw(files[0], files[1], opts["rate_mbit"])
        elif kind == "killed":
            killed(files[0], opts["host"])
        elif kind == "usage":
            usage(files[0])
        elif kind == "controls":
            controls(files[0])
        elif kind == "masked":
            masked(files[0], opts["exit"], opts.get("port"))
        else:
            fail("unknown check " + kind)
    except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
        fail("%s: %s: %s" % (kind, type(e).__name__, e))


def main():
    groups, cur = [], []
    for a in sys.argv[1:]:
        if a == "--":
            if cur:
                groups.append(cur)
            cur = []
        else:
            cur.append(a)
    if cur:
        groups.append(cur)
    for g in groups:
        run(g[0], g[1:])
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
