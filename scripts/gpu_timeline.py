#!/usr/bin/env python3
# Copyright 2026 gr-gpumimo authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Summarise a GPU timeline written by the gpu_trace injection library
(apps/bench/gpu_trace): how much of the time the GPU ran anything, which kernels and
copies took it, the idle gaps, and how long each host thread waited in CUDA calls.

    CUDA_INJECTION64_PATH=build-gpu/apps/bench/libgpumimo_gpu_trace.so \\
    GPUMIMO_TRACE_FILE=trace.csv  PROGRAM ...
    scripts/gpu_timeline.py trace.csv --skip 1.5 --span 2 [--frames N]

--skip leaves out the first seconds after the first record (start-up, warm-up),
--span takes that many seconds after it; --end-margin instead ends the window that many
seconds before the last kernel (a program that stops right after its measurement); --frames (frames the program handled in that
window, when known) adds each figure per frame. Plain Python, no numpy.
"""
import argparse
import collections
import gzip


def human(size):
    """A byte count as B, KB, MB (powers of 1024)."""
    for unit in ('B', 'KB', 'MB'):
        if size < 1024 or unit == 'MB':
            return ('%d %s' % (size, unit)) if unit == 'B' else ('%.1f %s' % (size, unit))
        size /= 1024.0


def read_records(path):
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt') as f:
        for line in f:
            parts = line.rstrip('\n').split(',', 4)
            if len(parts) == 5:
                yield parts[0], int(parts[1]), int(parts[2]), parts[3], parts[4]


def clip(intervals, lo, hi):
    return [(max(s, lo), min(e, hi)) for s, e in intervals if e > lo and s < hi]


def union(intervals):
    """The merged intervals, sorted."""
    merged = []
    for s, e in sorted(intervals):
        if merged and s <= merged[-1][1]:
            if e > merged[-1][1]:
                merged[-1][1] = e
        else:
            merged.append([s, e])
    return merged


def covered(intervals):
    return sum(e - s for s, e in union(intervals))


def gaps(merged, lo, hi):
    out, t = [], lo
    for s, e in merged:
        if s > t:
            out.append(s - t)
        t = max(t, e)
    if hi > t:
        out.append(hi - t)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('trace')
    p.add_argument('--skip', type=float, default=0.0)
    p.add_argument('--span', type=float, default=0.0, help='0: to the last record')
    p.add_argument('--end-margin', type=float, default=None)
    p.add_argument('--frames', type=float, default=0.0)
    p.add_argument('--top', type=int, default=15)
    args = p.parse_args(argv)

    records = list(read_records(args.trace))
    if not records:
        print('no records')
        return 1
    first = min(r[1] for r in records)
    last = max(r[2] for r in records)
    if args.end_margin is not None:
        hi = max(r[2] for r in records if r[0] == 'kernel') - int(args.end_margin * 1e9)
        lo = max(first, hi - int(args.span * 1e9))
    else:
        lo = first + int(args.skip * 1e9)
        hi = min(last, lo + int(args.span * 1e9)) if args.span > 0 else last
    window = hi - lo
    if window <= 0:
        print('the window is empty (the trace spans %.3f s)' % ((last - first) / 1e9))
        return 1
    inside = [r for r in records if r[2] > lo and r[1] < hi]

    def share(ns):
        return 100.0 * ns / window

    def per_frame(ns):
        return ' %8.1f us/frame' % (ns / 1e3 / args.frames) if args.frames else ''

    kernels = [r for r in inside if r[0] == 'kernel']
    copies = [r for r in inside if r[0] in ('memcpy', 'memset')]
    k_iv = clip([(r[1], r[2]) for r in kernels], lo, hi)
    c_iv = clip([(r[1], r[2]) for r in copies], lo, hi)
    all_merged = union(k_iv + c_iv)
    print('window %.3f s (%.3f s after the first record), %d records' %
          (window / 1e9, (lo - first) / 1e9, len(inside)))
    print('GPU running a kernel            %5.1f%%  (kernel time summed: %.1f%%, so %.2f kernels at once on average)' %
          (share(covered(k_iv)), share(sum(e - s for s, e in k_iv)),
           sum(e - s for s, e in k_iv) / max(1, covered(k_iv))))
    print('GPU running a kernel or a copy  %5.1f%%' % share(sum(e - s for s, e in all_merged)))
    idle = gaps(all_merged, lo, hi)
    for floor in (5e3, 20e3, 100e3, 1e6):
        long_gaps = [g for g in idle if g >= floor]
        print('idle gaps >= %7.0f us: %6d, %5.1f%% of the window' %
              (floor / 1e3, len(long_gaps), share(sum(long_gaps))))

    by_kind = collections.defaultdict(lambda: [0, 0, 0])
    by_size = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0]))
    for r, (s, e) in zip(copies, c_iv):
        kind, _, size = r[4].partition(':') if r[0] == 'memcpy' else ('memset', '', r[4])
        by_kind[kind][0] += 1
        by_kind[kind][1] += e - s
        by_kind[kind][2] += int(size or 0)
        by_size[kind][int(size or 0)][0] += 1
        by_size[kind][int(size or 0)][1] += e - s
    print('\ncopies: kind, count, busy %, GB/s over the window')
    for kind, (n, t, b) in sorted(by_kind.items()):
        print('  %-6s %8d %6.1f%% %8.2f%s%s' % (kind, n, share(t), b / window, per_frame(t),
                                            ', %.1f a frame' % (n / args.frames) if args.frames else ''))
        # The sizes that took the time: which copy it is (a record, a batch, a buffer
        # moved to its front) shows in its size.
        top = sorted(by_size[kind].items(), key=lambda x: -x[1][1])[:4]
        print('         by size: ' + ', '.join('%s x %d (%.1f%%)' % (human(b), k, share(t))
                                               for b, (k, t) in top))

    by_name = collections.defaultdict(lambda: [0, 0])
    for r, (s, e) in zip(kernels, k_iv):
        by_name[r[4]][0] += 1
        by_name[r[4]][1] += e - s
    print('\nkernels by time: count, share of the window, mean us')
    for name, (n, t) in sorted(by_name.items(), key=lambda x: -x[1][1])[:args.top]:
        print('  %6.1f%% %8d %8.1f%s  %s' % (share(t), n, t / 1e3 / n, per_frame(t), name[:90]))
    total = sum(t for _, t in by_name.values())
    print('  (%d kernel names, %d launches%s)' %
          (len(by_name), len(kernels),
           ', %.1f a frame, %.1f us of kernels a frame' % (len(kernels) / args.frames, total / 1e3 / args.frames)
           if args.frames else ''))

    streams = collections.defaultdict(list)
    for r, iv in zip(kernels, k_iv):
        streams[r[3]].append(iv)
    busy = sorted((covered(v) for v in streams.values()), reverse=True)
    print('\nstreams with kernels: %d; the busiest: %s' %
          (len(streams), ', '.join('%.1f%%' % share(t) for t in busy[:8])))

    # GNU Radio names a block's thread after the block and its unique id: the threads of
    # one block type (one per link) are averaged.
    waits = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0]))
    tids = collections.defaultdict(set)
    for r in inside:
        if r[0] == 'api':
            s, e = max(r[1], lo), min(r[2], hi)
            name, _, tid = r[3].rpartition(':')
            thread = name.rstrip('0123456789') or name
            tids[thread].add(tid)
            waits[thread][r[4]][0] += 1
            waits[thread][r[4]][1] += e - s
    print('\nhost threads in CUDA calls of 20 us or more (share of the window, the mean '
          'of the threads of one block type):')
    for thread, calls in sorted(waits.items(), key=lambda x: -sum(v[1] for v in x[1].values())):
        n = len(tids[thread])
        total = sum(v[1] for v in calls.values()) / n
        top = sorted(calls.items(), key=lambda x: -x[1][1])[:3]
        print('  %-16s x%-2d %6.1f%%  %s' % (thread[:16], n, share(total),
                                           ', '.join('%s %.1f%% (%d)' % (c, share(t / n), k)
                                                     for c, (k, t) in top)))
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
