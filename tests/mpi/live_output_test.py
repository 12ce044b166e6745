#!/usr/bin/env python3
"""The live-output checks of tests/mpi/live_output_test.sh: live_output_test.py CASE PATH [ARG...].

The golden (live_output_golden.txt) holds rank 0's stderr lines with the numbers that vary from
run to run replaced by placeholders (<num>, <dur>, <pair>, ...); everything else (which rows,
their columns, their words) must match exactly. Rows that finish on other ranks may reach rank 0
in any order, so local-check and round rows are compared as a set, and the order asserted is
the one the run guarantees: the plan, then local checks and network rounds, then the all-reduce
title, its header and its rows by size.
"""
import json
import os
import pty
import re
import select
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "live_output_golden.txt")
# The plan's lines, before anything runs: the plan, and what it can find (its power).
PLAN_LINES = ("ibgpu: plan", "ibgpu: power")
HOSTS = {"a", "b", "c", "d"}
PLAIN_INTERVAL = 5  # LiveOutput::kPlainInterval

NUM = r"[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?"
DUR = r"(?:" + NUM + r" s|[0-9]+m [0-9]+s|[0-9]+h [0-9]+m)"
PROGRESS = re.compile(r"^ibgpu: .*, " + DUR + r" elapsed(?:, " + DUR + r" (?:left of|past) the " + DUR + r" budget)?$")
LOCAL = re.compile(r"^ibgpu: local checks ([a-d]): ([0-9]+) done: (.*)$")
ROUND = re.compile(r"^ibgpu: network round ([0-9]+)/([0-9]+) done: ")
ALLREDUCE_ROW = re.compile(r"^ibgpu: +([0-9]+) +([0-9]+) +(\S+) +(\S+) +(.*)$")


def normalise_allreduce_row(m, line):
    size, count, dtype, redop, rest = m.groups()
    cells = rest.split()
    assert len(cells) == 8, line
    halves = []
    for half in (cells[:4], cells[4:]):
        time_us, algbw, busbw, wrong = half
        for v in (time_us, algbw, busbw):
            assert float(v) > 0, line
        assert wrong == "0", line  # the sum is checked bit for bit: nothing wrong here
        halves.append("<time> <algbw> <busbw> 0")
    return "ibgpu: [row] %s %s %s %s | %s | %s" % (size, count, dtype, redop, halves[0], halves[1])


def normalise(line):
    """One stderr line as the golden has it; None for a progress line (counted apart)."""
    if PROGRESS.match(line):
        return None
    m = LOCAL.match(line)
    if m:
        counts = [int(n) for n in re.findall(r"([0-9]+) (?:ok|failed|error|timeout|skipped)", m.group(3))]
        assert sum(counts) == int(m.group(2)), line
        return "ibgpu: local checks <host>: <n> done: <counts>"
    m = ALLREDUCE_ROW.match(line)
    if m:
        return normalise_allreduce_row(m, line)
    line = re.sub(r"\b[a-d]-[a-d]\b", "<pair>", line)
    line = re.sub(r"; (?:no suspects so far|suspects so far [0-9]+: .*)$", "; <suspects>", line)
    line = re.sub(NUM + r" GB/s", "<num> GB/s", line)
    line = re.sub(NUM + r" us\b", "<num> us", line)
    line = re.sub(DUR, "<dur>", line)
    return line


def lines_of(text):
    return [l for l in text.split("\n") if l.strip()]


def compare(rows, progress, what):
    """rows: rank 0's lines (no progress lines) in the order they came."""
    ibgpu = [l for l in rows if l.startswith("ibgpu: ")]
    normal = [normalise(l) for l in ibgpu]
    assert None not in normal
    if os.environ.get("IBGPU_UPDATE_GOLDEN") == "1" and what == "pipe":
        with open(GOLDEN, "w") as f:
            f.write("\n".join(normal) + "\n")
        print("rewrote", GOLDEN)
    golden = lines_of(open(GOLDEN).read())
    assert sorted(normal) == sorted(golden), "%s: rows differ from the golden\n got: %s\nwant: %s" % (
        what, json.dumps(normal, indent=1), json.dumps(golden, indent=1))
    # Every host's local checks, once each; every round once.
    assert sorted(LOCAL.match(l).group(1) for l in ibgpu if LOCAL.match(l)) == sorted(HOSTS), ibgpu
    rounds = [int(ROUND.match(l).group(1)) for l in ibgpu if ROUND.match(l)]
    assert sorted(rounds) == list(range(1, len(rounds) + 1)), rounds
    # Order: plan lines first; the all-reduce after every local and round row; its rows by size.
    kinds = []
    for l, n in zip(ibgpu, normal):
        kinds.append("plan" if n.startswith(PLAN_LINES) else
                     "net" if LOCAL.match(l) or ROUND.match(l) else "ar")
    assert kinds == sorted(kinds, key=["plan", "net", "ar"].index), list(zip(kinds, ibgpu))
    ar = [n for n, k in zip(normal, kinds) if k == "ar"]
    golden_ar = [g for g in golden if not g.startswith(PLAN_LINES) and "local checks" not in g
                 and "network round" not in g]
    assert ar == golden_ar, (ar, golden_ar)
    # The rows line up under the header: the same width.
    header = [l for l in ibgpu if "#wrong" in l]
    assert len(header) == 1, header
    for l in ibgpu:
        if ALLREDUCE_ROW.match(l):
            assert len(l) == len(header[0]), (l, header[0])
    assert progress >= 1, "%s: no progress line" % what


def pipe(err_path, wall, out_path):
    """stderr went to a file: plain lines, no control codes; progress at most every few seconds."""
    raw = open(err_path, "rb").read()
    assert b"\x1b" not in raw and b"\r" not in raw, "%s: control codes on a pipe" % err_path
    text = raw.decode()
    rows = lines_of(text)
    progress = [l for l in rows if PROGRESS.match(l)]
    assert len(progress) <= 1 + int(wall) // PLAIN_INTERVAL + 1, (len(progress), wall, progress)
    compare([l for l in rows if not PROGRESS.match(l)], len(progress), "pipe")
    report = open(out_path, "rb").read()
    assert b"\x1b" not in report and b"\r" not in report
    for l in report.decode().split("\n"):
        assert not l.startswith("ibgpu:") and not PROGRESS.match(l), l
    assert "\nSummary: " in "\n" + report.decode()


def screen(stream):
    """What a terminal shows of the stream: carriage return + erase-line restarts the line."""
    text = stream.replace("\r\n", "\n")  # the pseudo-terminal's own newline translation
    finished, redraws = [], 0
    parts = text.split("\n")
    for part in parts:
        redraws += part.count("\r\x1b[K")
        shown = part.split("\r\x1b[K")[-1]
        assert "\x1b" not in shown and "\r" not in shown, repr(part)
        finished.append(shown)
    last = finished.pop()  # no newline after it: what is left on the screen's last line
    return finished, last, redraws


def run_on_pty(limit, stdout_path, cmd):
    master, slave = pty.openpty()
    with open(stdout_path, "wb") as out:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=slave)
    os.close(slave)
    stream = b""
    deadline = time.time() + limit
    while time.time() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # the other side closed
                break
            if not data:
                break
            stream += data
        elif proc.poll() is not None:
            break
    # The terminal closes as mpirun's ranks end, a moment before mpirun itself exits: wait for it
    # within what is left of the limit.
    try:
        rc = proc.wait(timeout=max(1.0, deadline - time.time()))
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError("mpirun on a pseudo-terminal ran past %s s" % limit)
    os.close(master)
    return rc, stream


def pty_case(raw_path, limit, stdout_path, *cmd):
    rc, stream = run_on_pty(float(limit), stdout_path, list(cmd))
    with open(raw_path, "wb") as f:
        f.write(stream)
    assert rc <= 3, "exit %d\n%s" % (rc, stream.decode(errors="replace"))
    text = stream.decode()
    rows, last, redraws = screen(text)
    assert last == "", "the progress line was left on the screen: %r" % last
    # The progress line was drawn and redrawn in place, never as a line of its own.
    progress = [p for p in re.split(r"\r\x1b\[K|\n", text.replace("\r\n", "\n")) if PROGRESS.match(p)]
    assert redraws >= 3 and len(progress) >= 2, (redraws, progress)
    assert not any(PROGRESS.match(r) for r in rows), [r for r in rows if PROGRESS.match(r)]
    compare([r for r in rows if r.strip()], len(progress), "pty")
    # stdout carried the report while all this ran: one JSON document, nothing else.
    report = open(stdout_path, "rb").read()
    assert b"\x1b" not in report, "control codes in the report"
    doc = json.loads(report.decode())
    assert doc["schema_version"] >= 1 and len(doc["hosts"]) == 4, doc.get("hosts")


CASES = {"pipe": pipe, "pty": pty_case}

if __name__ == "__main__":
    CASES[sys.argv[1]](*sys.argv[2:])
