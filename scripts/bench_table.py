#!/usr/bin/env python3
# Copyright 2026 gr-gpumimo authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Turns a gpumimo_bench log into the markdown table of docs/performance.md, so that the
figures there are copied by a program, not retyped.

    scripts/bench_table.py docs/bench/<log>.txt
"""
import re
import sys

ROW = re.compile(r'^(\S.*?)\s{2,}(\S+(?: T\w+)?|-)\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+'
                 r'(\d+)%\s+(?:(\d+)\s+(\d+)%\s+)?(?:(\d+)\s+)?(\d+)\s+([\d.]+)$')
NAMES = {'qpsk': 'QPSK', '16qam': '16-QAM', '64qam': '64-QAM', '256qam': '256-QAM', '1024qam': '1024-QAM', 'bpsk': 'BPSK',
         'pi/2-bpsk': 'pi/2-BPSK'}
HEADLINE = ('mtt 4x4 16-QAM', 'nway 4x4 16-QAM N=4', 'psd 4x4 16-QAM 20 dB')


def label_of(raw):
    label = raw
    for k, v in NAMES.items():
        label = label.replace(k, v)
    label = re.sub(r'(\d+)dB', r'\1 dB', label)
    if label.endswith(' block'):
        label = label[:-len(' block')] + ", paper's block mapping"
    return label


def main(path):
    print('| detector | paper (source) | kernel f32 @paper | kernel f32 | kernel f64 | '
          'end to end, pinned | of PCIe bound | streamed, pinned | of PCIe bound | '
          'end to end, registered | end to end, pageable | CPU ref, 16 cores |')
    print('|---|---|---|---|---|---|---|---|---|---|---|---|')
    for line in open(path):
        m = ROW.match(line.rstrip('\n'))
        if not m:
            continue
        (raw, src, paper, at_paper, k32, k64, e2e, pct, streamed, streamed_pct, registered,
         pageable, cpu) = m.groups()
        label = label_of(raw)
        bold = label in HEADLINE
        cells = [f'**{label}**' if bold else label,
                 '-' if paper == '-' else f'{paper} ({src})',
                 f'{int(at_paper):,}',
                 f'**{int(k32):,}**' if bold else f'{int(k32):,}',
                 f'{int(k64):,}', f'{int(e2e):,}', f'{pct}%',
                 f'{int(streamed):,}' if streamed else '-',
                 f'{streamed_pct}%' if streamed else '-',
                 f'{int(registered):,}' if registered else '-', f'{int(pageable):,}', cpu]
        print('| ' + ' | '.join(cells) + ' |')


if __name__ == '__main__':
    main(sys.argv[1])
