#!/usr/bin/env python3
"""Checks an HTML report as a browser saw it.

  check_page.py dom DUMP.html EXPECT.json   the DOM Chromium dumped (--dump-dom)
  check_page.py png SHOT.png COLOURS         a screenshot: its pixels, decoded here

EXPECT is a JSON object:
  {"heatmaps": {"RAIL": {"cells": N, "valued": N, "flags": N}, ...},  every heatmap, by data-rail
   "nodes": ["host", ...],                                             the rows of table#nodes, in order
   "reason_rows": N,                                                   rows of table#reasons (optional)
   "text": ["must appear as text", ...]}                              (optional)
COLOURS is "#rrggbb:MIN,#rrggbb:MIN": each colour must cover at least MIN pixels.
Exit 0 when every check holds, 1 with the failures listed.
"""
import json
import struct
import sys
import zlib
from html.parser import HTMLParser


class Page(HTMLParser):
    """The elements the checks need, from the serialised DOM."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.heatmaps = {}  # data-rail -> {"cells", "valued", "flags"}
        self.current_map = None
        self.svg_depth = 0
        self.scripts = 0
        self.tables = {}  # id -> list of rows (list of cell texts)
        self.table = None
        self.cell = None
        self.text = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "script":
            self.scripts += 1
        if tag == "svg":
            if "heatmap" in classes:
                rail = a.get("data-rail", "")
                if rail in self.heatmaps:
                    raise SystemExit(f"FAIL: two heatmaps for rail {rail!r}")
                self.heatmaps[rail] = {"cells": 0, "valued": 0, "flags": 0}
                self.current_map = rail
                self.svg_depth = 0
            if self.current_map is not None:
                self.svg_depth += 1
        if tag == "rect" and self.current_map is not None:
            m = self.heatmaps[self.current_map]
            if "cell" in classes:
                m["cells"] += 1
                m["valued"] += "data-gbps" in a
            if "flag" in classes:
                m["flags"] += 1
        if tag == "table" and a.get("id"):
            self.table = a["id"]
            self.tables[self.table] = []
        if tag == "tr" and self.table is not None:
            self.tables[self.table].append([])
        if tag == "td" and self.table is not None:
            self.cell = []

    def handle_endtag(self, tag):
        if tag == "svg" and self.current_map is not None:
            self.svg_depth -= 1
            if self.svg_depth == 0:
                self.current_map = None
        if tag == "td" and self.cell is not None:
            self.tables[self.table][-1].append("".join(self.cell).strip())
            self.cell = None
        if tag == "table":
            self.table = None

    def handle_data(self, data):
        self.text.append(data)
        if self.cell is not None:
            self.cell.append(data)


def check_dom(dump_path, expect_path):
    with open(dump_path, encoding="utf-8") as f:
        page = Page()
        page.feed(f.read())
    with open(expect_path, encoding="utf-8") as f:
        expect = json.load(f)
    errors = []
    if page.scripts:
        errors.append(f"{page.scripts} <script> element(s) in the DOM: some text was not escaped")
    if set(page.heatmaps) != set(expect["heatmaps"]):
        errors.append(f"heatmaps for rails {sorted(page.heatmaps)}, expected {sorted(expect['heatmaps'])}")
    for rail, want in expect["heatmaps"].items():
        got = page.heatmaps.get(rail)
        if got is not None and got != want:
            errors.append(f"heatmap {rail!r}: {got}, expected {want}")
    # Data rows only: the header row has <th>, no <td>.
    nodes = [row[0] for row in page.tables.get("nodes", []) if row]
    if nodes != expect["nodes"]:
        errors.append(f"table#nodes rows {nodes}, expected {expect['nodes']}")
    if "reason_rows" in expect:
        rows = [row for row in page.tables.get("reasons", []) if row]
        if len(rows) != expect["reason_rows"]:
            errors.append(f"table#reasons has {len(rows)} rows, expected {expect['reason_rows']}")
    text = "".join(page.text)
    for needle in expect.get("text", []):
        if needle not in text:
            errors.append(f"text {needle!r} not on the page")
    return errors


def png_pixels(path):
    """Width, height and RGBA rows of an 8-bit RGB(A) non-interlaced PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"FAIL: {path} has no PNG signature")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise SystemExit(f"FAIL: unexpected PNG format depth {depth} colour type {colour} interlace {interlace}")
    bpp = 4 if colour == 6 else 3
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif kind == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 0xFF
        elif kind == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        rows.append(line)
        prev = line
    return width, height, bpp, rows


def check_png(path, colours):
    width, height, bpp, rows = png_pixels(path)
    errors = []
    counts = {}
    for line in rows:
        for x in range(0, len(line), bpp):
            key = bytes(line[x:x + 3])
            counts[key] = counts.get(key, 0) + 1
    if len(counts) < 8:
        errors.append(f"only {len(counts)} distinct colours in {width}x{height}: a blank page?")
    for spec in colours.split(","):
        hex_colour, minimum = spec.split(":")
        key = bytes.fromhex(hex_colour.lstrip("#"))
        if counts.get(key, 0) < int(minimum):
            errors.append(f"colour {hex_colour} covers {counts.get(key, 0)} pixels, expected at least {minimum}")
    print(f"{path}: {width}x{height}, {len(counts)} colours")
    return errors


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("dom", "png"):
        print(__doc__, file=sys.stderr)
        return 2
    errors = check_dom(sys.argv[2], sys.argv[3]) if sys.argv[1] == "dom" else check_png(sys.argv[2], sys.argv[3])
    for e in errors:
        print("FAIL:", e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
