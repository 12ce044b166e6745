#!/usr/bin/env python3
"""Checks an HTML report as a browser saw it.

  check_page.py dom DUMP.html EXPECT.json   the DOM Chromium dumped (--dump-dom)
  check_page.py png SHOT.png COLOURS         a screenshot: its pixels, decoded here
  check_page.py contrast DUMP.html STATES    the computed styles of every state label (see below)

EXPECT is a JSON object:
  {"heatmaps": {"QUANTITY:RAIL": {"pairs": N, "valued": N, "unmeasured": N, "flags": N,
                                  "self": N, "leaves": N}, ...},       every heatmap, by data-quantity
                                                                       and data-rail; pairs of two hosts,
                                                                       each counted once
   "nodes": ["host", ...],                                             the rows of table#nodes, in order
   "reason_rows": N,                                                   rows of table#reasons (optional)
   "sections": ["id", ...],                                            <section> ids, in order (optional)
   "table_first_cells": {"id": ["text", ...]},                         the first cell of each data row
                                                                       of table#id (optional)
   "allreduce": {"rows": N, "series": N, "points": N},                 (optional)
   "burn_in": {"ENTITY": {"charts": N, "bad_rounds": "3,5", "flagged": N}, ...}, the entities drawn
                                                                       (optional; "kind id" as shown)
   "text": ["must appear as text", ...]}                              (optional)
COLOURS is "#rrggbb:MIN,#rrggbb:<MAX": each colour must cover at least MIN pixels, or fewer than MAX.
For contrast, DUMP is a copy of the page with a script appended that wrote, into <pre
id="computed-styles">, the computed text colour and effective background of every .state
element; each must reach WCAG 2's 4.5:1, and STATES ("healthy,failed,...") must all be among them.
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
        self.heatmaps = {}  # "quantity:rail" -> counts, see EXPECT
        self.heatmap_attrs = {}  # "quantity:rail" -> the <svg>'s attributes
        self.current_map = None
        self.sections = []
        self.charts = []  # attributes of every <svg class="chart">, with "points" and "flagged" counted
        self.current_chart = None
        self.pre = None
        self.pre_text = {}
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
        if tag == "section" and a.get("id"):
            self.sections.append(a["id"])
        if tag == "pre" and a.get("id"):
            self.pre = a["id"]
            self.pre_text[self.pre] = []
        if tag == "svg":
            if "heatmap" in classes:
                key = a.get("data-quantity", "") + ":" + a.get("data-rail", "")
                if key in self.heatmaps:
                    raise SystemExit(f"FAIL: two heatmaps for {key!r}")
                self.heatmaps[key] = {"pairs": 0, "valued": 0, "unmeasured": 0, "flags": 0, "self": 0,
                                      "leaves": 0, "mirrors": 0, "mirror_flags": 0}
                self.heatmap_attrs[key] = a
                self.current_map = key
                self.svg_depth = 0
            if "chart" in classes:
                self.current_chart = dict(a, classes=classes, points=0, flagged=0, bands=0)
                self.charts.append(self.current_chart)
            if self.current_map is not None:
                self.svg_depth += 1
        if self.current_chart is not None:
            if "point" in classes:
                self.current_chart["points"] += 1
                self.current_chart["flagged"] += "flagged" in classes
            if "band" in classes:
                self.current_chart["bands"] += 1
        if self.current_map is not None:
            m = self.heatmaps[self.current_map]
            mirror = "mirror" in classes
            if tag == "rect" and "cell" in classes:
                if mirror:
                    m["mirrors"] += 1
                elif "none" in classes:
                    m["unmeasured"] += 1
                else:
                    m["pairs"] += 1
                    m["valued"] += "data-value" in a
            if tag == "rect" and "self" in classes:
                m["self"] += 1
            if "flag" in classes:
                m["mirror_flags" if mirror else "flags"] += 1
            if "leaf-label" in classes:
                m["leaves"] += 1
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
        elif tag == "svg":
            self.current_chart = None
        if tag == "pre":
            self.pre = None
        if tag == "td" and self.cell is not None:
            self.tables[self.table][-1].append("".join(self.cell).strip())
            self.cell = None
        if tag == "table":
            self.table = None

    def handle_data(self, data):
        self.text.append(data)
        if self.pre is not None:
            self.pre_text[self.pre].append(data)
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
        errors.append(f"heatmaps {sorted(page.heatmaps)}, expected {sorted(expect['heatmaps'])}")
    for key, want in expect["heatmaps"].items():
        got = page.heatmaps.get(key)
        if got is None:
            continue
        errors += check_heatmap(key, got, page.heatmap_attrs[key], want)
    # Data rows only: the header row has <th>, no <td>.
    nodes = [row[0] for row in page.tables.get("nodes", []) if row]
    if nodes != expect["nodes"]:
        errors.append(f"table#nodes rows {nodes}, expected {expect['nodes']}")
    if "reason_rows" in expect:
        rows = [row for row in page.tables.get("reasons", []) if row]
        if len(rows) != expect["reason_rows"]:
            errors.append(f"table#reasons has {len(rows)} rows, expected {expect['reason_rows']}")
    for table_id, firsts in expect.get("table_first_cells", {}).items():
        got = [row[0] for row in page.tables.get(table_id, []) if row]
        if got != firsts:
            errors.append(f"table#{table_id} rows begin {got}, expected {firsts}")
    if "sections" in expect and page.sections != expect["sections"]:
        errors.append(f"sections {page.sections}, expected {expect['sections']}")
    if "allreduce" in expect:
        errors += check_allreduce(page, expect["allreduce"])
    if "burn_in" in expect:
        errors += check_burn_in(page, expect["burn_in"])
    text = "".join(page.text)
    for needle in expect.get("text", []):
        if needle not in text:
            errors.append(f"text {needle!r} not on the page")
    return errors


def check_heatmap(key, got, attrs, want):
    """Each pair of two hosts once; the mirrored half and the diagonal agree with them."""
    errors = []
    shown = {k: got[k] for k in want}
    if shown != want:
        errors.append(f"heatmap {key!r}: {shown}, expected {want}")
    hosts = int(attrs.get("data-hosts", -1))
    if attrs.get("data-detail") == "cells":
        if got["mirrors"] != got["pairs"] + got["unmeasured"]:
            errors.append(f"heatmap {key!r}: {got['mirrors']} mirrored cells for "
                          f"{got['pairs'] + got['unmeasured']} pairs drawn")
        if got["pairs"] + got["unmeasured"] != hosts * (hosts - 1) // 2:
            errors.append(f"heatmap {key!r}: {got['pairs'] + got['unmeasured']} pairs drawn for {hosts} hosts")
        if got["self"] != hosts:
            errors.append(f"heatmap {key!r}: {got['self']} same-host cells for {hosts} hosts")
        if attrs.get("data-pairs") != str(got["pairs"]):
            errors.append(f"heatmap {key!r}: data-pairs {attrs.get('data-pairs')}, {got['pairs']} measured drawn")
    if got["mirror_flags"] != got["flags"]:
        errors.append(f"heatmap {key!r}: {got['flags']} flags above the diagonal, {got['mirror_flags']} below")
    if attrs.get("data-possible-pairs") != str(hosts * (hosts - 1) // 2):
        errors.append(f"heatmap {key!r}: data-possible-pairs {attrs.get('data-possible-pairs')} for {hosts} hosts")
    return errors


def check_allreduce(page, want):
    errors = []
    rows = [row for row in page.tables.get("allreduce", []) if row]
    if len(rows) != want["rows"]:
        errors.append(f"table#allreduce has {len(rows)} rows, expected {want['rows']}")
    charts = [c for c in page.charts if "allreduce" in c["classes"]]
    if len(charts) != 1:
        return errors + [f"{len(charts)} all-reduce charts, expected 1"]
    got = {"series": int(charts[0].get("data-series", -1)), "points": charts[0]["points"]}
    if got != {"series": want["series"], "points": want["points"]}:
        errors.append(f"all-reduce chart {got}, expected series {want['series']} points {want['points']}")
    return errors


def check_burn_in(page, want):
    errors = []
    got = {}
    for c in page.charts:
        if "burn-in" not in c["classes"]:
            continue
        entity = c.get("data-entity", "")
        g = got.setdefault(entity, {"charts": 0, "bad_rounds": c.get("data-bad-rounds"), "flagged": 0})
        g["charts"] += 1
        g["flagged"] += c["flagged"]
        if c["flagged"] != int(c.get("data-flagged-points", -1)):
            errors.append(f"burn-in chart of {entity!r}: {c['flagged']} marked points, "
                          f"data-flagged-points {c.get('data-flagged-points')}")
        bad = [r for r in (c.get("data-bad-rounds") or "").split(",") if r]
        if c["bands"] != len(bad):
            errors.append(f"burn-in chart of {entity!r}: {c['bands']} shaded rounds for bad rounds {bad}")
    if got != want:
        errors.append(f"burn-in charts {got}, expected {want}")
    return errors


def srgb_luminance(rgb):
    """WCAG 2 relative luminance of an (r, g, b) in 0..255."""
    def channel(c):
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(fg, bg):
    hi, lo = sorted((srgb_luminance(fg), srgb_luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def css_colour(text):
    """'rgb(1, 2, 3)' or 'rgba(1, 2, 3, 0.5)' as ((r, g, b), alpha)."""
    inner = text[text.index("(") + 1:text.rindex(")")].replace("/", ",")
    parts = [p.strip() for p in inner.replace(",", " ").split()]
    rgb = tuple(float(p) for p in parts[:3])
    alpha = float(parts[3]) if len(parts) > 3 else 1.0
    return rgb, alpha


def over(top, alpha, under):
    return tuple(t * alpha + u * (1 - alpha) for t, u in zip(top, under))


def check_contrast(dump_path, states):
    with open(dump_path, encoding="utf-8") as f:
        page = Page()
        page.feed(f.read())
    if "computed-styles" not in page.pre_text:
        return ["no <pre id=computed-styles>: the style script did not run"]
    labels = json.loads("".join(page.pre_text["computed-styles"]))
    errors, seen = [], set()
    for label in labels:
        # The backgrounds from the element up, innermost first: composed over white (the page).
        bg = (255.0, 255.0, 255.0)
        for layer in reversed(label["backgrounds"]):
            rgb, alpha = css_colour(layer)
            bg = over(rgb, alpha, bg)
        fg_rgb, fg_alpha = css_colour(label["color"])
        ratio = contrast_ratio(over(fg_rgb, fg_alpha, bg), bg)
        kind = next((c[len("state-"):] for c in label["class"].split() if c.startswith("state-")), "?")
        seen.add(kind)
        if ratio < 4.5:
            errors.append(f"state label {label['text']!r} ({kind}): contrast {ratio:.2f}:1 of {label['color']} "
                          f"on {label['backgrounds']}, below 4.5:1")
    for want in states.split(","):
        if want not in seen:
            errors.append(f"no state label of {want!r} on the page (seen {sorted(seen)})")
    print(f"{dump_path}: {len(labels)} state labels, kinds {sorted(seen)}, every contrast >= 4.5:1"
          if not errors else f"{dump_path}: {len(labels)} state labels")
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
        hex_colour, bound = spec.split(":")
        key = bytes.fromhex(hex_colour.lstrip("#"))
        got = counts.get(key, 0)
        if bound.startswith("<"):
            if got >= int(bound[1:]):
                errors.append(f"colour {hex_colour} covers {got} pixels, expected fewer than {bound[1:]}")
        elif got < int(bound):
            errors.append(f"colour {hex_colour} covers {got} pixels, expected at least {bound}")
    print(f"{path}: {width}x{height}, {len(counts)} colours")
    return errors


def main():
    checks = {"dom": check_dom, "png": check_png, "contrast": check_contrast}
    if len(sys.argv) != 4 or sys.argv[1] not in checks:
        print(__doc__, file=sys.stderr)
        return 2
    errors = checks[sys.argv[1]](sys.argv[2], sys.argv[3])
    for e in errors:
        print("FAIL:", e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
