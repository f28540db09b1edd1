#!/usr/bin/env python3
#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""BER against the number of receive antennas on the APSM recordings: runs
gpumimo_apsm_ota --sweep-antennas for APSM and least squares, writes the two tables
(DIR/apsm-antenna-sweep.txt) and a figure of each recording's BER per user against the
antennas, APSM solid and least squares dashed (DIR/apsm-antenna-sweep.png).

    scripts/apsm_antenna_sweep.py --tool build/apps/apsm/gpumimo_apsm_ota \\
        --data examples/recordings/apsm-ota --out docs/figures/apsm
"""

import argparse
import pathlib
import re
import subprocess
import sys


def sweep(tool, data, detector, counts):
    """{recording: {antennas: [(SER %, BER %) per user]}} and the tool's text."""
    text = subprocess.run([tool, "--data", data, "--detector", detector, "--sweep-antennas",
                           ",".join(map(str, counts))], check=True, capture_output=True,
                          text=True).stdout
    tables, name = {}, None
    for line in text.splitlines():
        head = re.match(r"^(\S+ \S+): ", line)
        if head:
            name = head.group(1)
            tables[name] = {}
            continue
        row = re.match(r"^\s+(\d+)\s+(.*)$", line)
        if name and row:
            pairs = re.findall(r"([\d.]+)/\s*([\d.]+)", row.group(2))
            tables[name][int(row.group(1))] = [(float(s), float(b)) for s, b in pairs]
    return tables, text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tool", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--antennas", default="1,2,4,6,8,12,16")
    args = ap.parse_args()
    counts = [int(c) for c in args.antennas.split(",")]
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    apsm, apsm_text = sweep(args.tool, args.data, "apsm", counts)
    ls, ls_text = sweep(args.tool, args.data, "ls", counts)
    (out / "apsm-antenna-sweep.txt").write_text(apsm_text + "\n" + ls_text)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, 2, figsize=(11, 8), sharex=True)
    for ax, name in zip(axes.flat, apsm):
        users = len(next(iter(apsm[name].values())))
        for u in range(users):
            color = f"C{u}"
            for table, style in ((apsm, "-"), (ls, "--")):
                ber = [max(table[name][n][u][1], 1e-3) for n in counts]  # 0 drawn at 1e-3 %
                ax.semilogy(counts, ber, style, color=color,
                            label=f"user {u}" if style == "-" else None)
        ax.set_title(f"{name}: APSM (solid), least squares (dashed)")
        ax.set_xlabel("receive antennas (equidistant of 16)")
        ax.set_ylabel("BER % (0 shown at 1e-3)")
        ax.grid(True, which="both", alpha=0.3)
    axes.flat[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "apsm-antenna-sweep.png", dpi=90)
    return 0


if __name__ == "__main__":
    sys.exit(main())
