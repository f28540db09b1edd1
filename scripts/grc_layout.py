#!/usr/bin/env python3
#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Lays the examples' flowgraphs out left to right in processing order, and checks that
no two blocks overlap on GNU Radio Companion's canvas.

    scripts/grc_layout.py [--sizes DIR] FILE.grc...  rewrite each file's block coordinates
    scripts/grc_layout.py --check FILE.grc...        list overlapping blocks; exit 1 if any

--sizes DIR: the blocks' sizes as GRC drew them (DIR/NAME.extents.json from
scripts/grc_screenshots.py) instead of the estimates below.

Without --sizes, block sizes are rough estimates of GRC 3.10's drawing (grc/gui/canvas/
block.py): a title line and a line per parameter written in the file, values truncated
to about 27 characters, at least the height the ports need (32 pixels apart); GRC also
shows parameters left at their defaults and port labels, so they fall short of it for
large blocks. The examples are laid out from GRC's own sizes (--sizes), and their QA
measures the canvas in GRC itself. Only the coordinates change in a file; everything
else is kept as written.
"""

import re
import sys

import yaml

PADDING = 7          # BLOCK_LABEL_PADDING
TITLE_H = 14         # Sans 8
LINE_H = 12          # a parameter line, Sans 7.5
PORT_SEPARATION = 32
PORT_H = 16
WIDTH = 240          # title or "label: value" (truncated) in Sans 7.5, with padding
GAP_X, GAP_Y = 48, 24
ROW_WIDTH = 1800     # where the top row of variables and parameters wraps

# Blocks without stream ports that belong above the processing chain.
VARIABLE_LIKE = re.compile(r"^(options|import|parameter|variable.*|epy_module|snippet)$")


def load(path):
    with open(path) as f:
        return yaml.safe_load(f)


def port_counts(fg):
    """name -> (sinks, sources): one more than the highest port index its connections
    name (message ports counted as one each)."""
    counts = {}
    for src, sport, dst, dport in fg.get("connections") or []:
        for name, port, side in ((src, sport, 1), (dst, dport, 0)):
            n = list(counts.get(name, (0, 0)))
            n[side] = max(n[side], int(port) + 1 if str(port).isdigit() else n[side] + 1)
            counts[name] = tuple(n)
    return counts


def block_size(block, ports):
    params = block.get("parameters") or {}
    lines = sum(1 for k in params if k not in ("comment", "affinity", "alias",
                                                   "maxoutbuf", "minoutbuf"))
    height = 2 * PADDING + TITLE_H + LINE_H * lines
    most_ports = max(ports) if ports else 0
    if most_ports:
        height = max(height, 2 * 8 + (most_ports - 1) * PORT_SEPARATION + PORT_H)
    return WIDTH, height


def blocks_of(fg):
    """[(name, block)] with the options block first (named "options")."""
    out = [("options", fg["options"])] if fg.get("options") else []
    return out + [(b["name"], b) for b in fg.get("blocks") or []]


def coordinate(block):
    return tuple(block["states"]["coordinate"])


def boxes(fg):
    counts = port_counts(fg)
    out = {}
    for name, b in blocks_of(fg):
        x, y = coordinate(b)
        w, h = block_size(b, counts.get(name, (0, 0)))
        out[name] = (x, y, w, h)
    return out


def overlaps(fg):
    """Pairs of block names whose estimated boxes intersect."""
    items = sorted(boxes(fg).items())
    found = []
    for i, (a, (ax, ay, aw, ah)) in enumerate(items):
        for b, (bx, by, bw, bh) in items[i + 1:]:
            if ax < bx + bw and bx < ax + aw and ay < by + bh and by < ay + ah:
                found.append((a, b))
    return found


def measured_sizes(fg, extents):
    """name -> (width, height, left, top) from the extents GRC drew (scripts/
    grc_screenshots.py's NAME.extents.json: x0, y0, x1, y1 with the ports), left and top
    being how far they reach left of and above the block's coordinate."""
    out = {}
    for name, b in blocks_of(fg):
        if name in extents:
            x, y = coordinate(b)
            x0, y0, x1, y1 = extents[name]
            out[name] = (x1 - x0, y1 - y0, x - x0, y - y0)
    return out


def layout(fg, measured=None):
    """name -> (x, y): variable-like blocks in rows along the top, the others in columns
    by their depth along the connections (sources left), each column stacked in the order
    of its blocks' predecessors' rows. measured: measured_sizes(), where GRC drew the
    flowgraph; else the estimates of block_size()."""
    counts = port_counts(fg)
    named = dict(blocks_of(fg))
    size = {n: block_size(b, counts.get(n, (0, 0))) + (0, 0) for n, b in named.items()}
    size.update(measured or {})
    edges = [(s, d) for s, _, d, _ in fg.get("connections") or [] if s in named and d in named]
    chain = [n for n, b in blocks_of(fg)
             if n in counts or not VARIABLE_LIKE.match("options" if n == "options" else b["id"])]
    top = [n for n, _ in blocks_of(fg) if n not in chain]

    pos = {}
    x = y = 8
    row_h = 0
    for n in top:
        w, h, left, above = size[n]
        if x > 8 and x + w > ROW_WIDTH:
            x, y = 8, y + row_h + GAP_Y
            row_h = 0
        pos[n] = (x + left, y + above)
        x += w + GAP_X
        row_h = max(row_h, h)
    chain_y = y + row_h + 2 * GAP_Y

    # Depth: the longest path from a block without inputs (cycles, such as a message
    # port looping back, are cut where they close).
    depth = {n: 0 for n in chain}
    for _ in range(len(chain)):
        changed = False
        for s, d in edges:
            if s in depth and d in depth and depth[d] < depth[s] + 1 <= len(chain):
                depth[d] = depth[s] + 1
                changed = True
        if not changed:
            break
    columns = {}
    for n in chain:
        columns.setdefault(depth[n], []).append(n)
    x = 8
    order = {}
    for c in sorted(columns):
        members = columns[c]
        preds = {n: [order[s] for s, d in edges if d == n and s in order] for n in members}
        members.sort(key=lambda n: (sum(preds[n]) / len(preds[n]) if preds[n] else 0,
                                    chain.index(n)))
        y = chain_y
        for i, n in enumerate(members):
            w, h, left, above = size[n]
            pos[n] = (x + left, y + above)
            order[n] = i
            y += h + GAP_Y
        x += max(size[n][0] for n in members) + GAP_X
    return {n: (int(-(-px // 8)) * 8, int(-(-py // 8)) * 8) for n, (px, py) in pos.items()}


COORD = re.compile(r"(coordinate:)(\n\s+- )(-?\d+)(\n\s+- )(-?\d+)|(coordinate: \[)(-?\d+), (-?\d+)\]")


def rewrite(text, positions):
    """text with each block's coordinate replaced: sections start at "options:" or
    "- name: NAME"."""
    out, name = [], None
    for section in re.split(r"(?m)^(?=options:|- name: )", text):
        m = re.match(r"- name: (\S+)", section)
        name = m.group(1) if m else ("options" if section.startswith("options:") else None)
        if name in positions:
            x, y = positions[name]

            def put(c):
                if c.group(1):
                    return f"{c.group(1)}{c.group(2)}{x}{c.group(4)}{y}"
                return f"{c.group(6)}{x}, {y}]"
            section = COORD.sub(put, section, count=1)
        out.append(section)
    return "".join(out)


def main(argv):
    check = "--check" in argv
    sizes_dir = None
    if "--sizes" in argv:
        i = argv.index("--sizes")
        sizes_dir = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    files = [a for a in argv if a != "--check"]
    bad = 0
    for path in files:
        fg = load(path)
        if check:
            for a, b in overlaps(fg):
                print(f"{path}: {a} overlaps {b}")
                bad += 1
            continue
        measured = None
        if sizes_dir:
            import json
            import os
            name = os.path.splitext(os.path.basename(path))[0]
            with open(os.path.join(sizes_dir, name + ".extents.json")) as f:
                measured = measured_sizes(fg, json.load(f))
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(rewrite(text, layout(fg, measured)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
