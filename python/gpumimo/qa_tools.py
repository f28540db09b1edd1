#!/usr/bin/env python3
# Copyright 2026 gr-gpumimo authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""The repository's measuring tools whose figures go into docs/performance.md:
scripts/gpu_timeline.py (the GPU timeline's summary) on a trace whose answers are known
by hand; apps/peer/sionna_peer.py's own arithmetic (its SNR grid and the SNR at BER
1e-2), which runs here without Sionna; the Python tools' answers to bad options and
the main job's console output."""

import os
import pathlib
import re
import subprocess
import sys

SOURCE = pathlib.Path(__file__).resolve().parents[2]
TIMELINE = SOURCE / "scripts" / "gpu_timeline.py"
PEER = SOURCE / "apps" / "peer" / "sionna_peer.py"


def summarise(tmp_path, lines, *args):
    trace = tmp_path / "trace.csv"
    trace.write_text("".join(line + "\n" for line in lines))
    out = subprocess.run([sys.executable, str(TIMELINE), str(trace), *args],
                         capture_output=True, text=True, check=True)
    return out.stdout


def percent(text, label):
    found = re.search(re.escape(label) + r"\s+([0-9.]+)%", text)
    assert found, (label, text)
    return float(found.group(1))


def us(t):
    return str(int(t * 1000))  # the trace's nanoseconds


def test_timeline_busy_gaps_and_waits(tmp_path):
    """Over 0-50 us: kernels 0-10 (stream 1), 5-15 (stream 2), 30-40 (stream 1), a copy
    45-50: a kernel runs 25 us (50%), summed 30 us, a kernel or a copy 30 us (60%);
    idle 15-30 and 40-45 (two gaps of 5 us or more, 40%; none of 20 us); two threads of
    one block wait 25 and 5 us in calls of 20 us or more (the 5 us one is the tracer's
    business to leave out; here it is in the file, so it counts): 30% on average."""
    text = summarise(tmp_path, [
        f"kernel,{us(0)},{us(10)},1,detect_kernel",
        f"kernel,{us(5)},{us(15)},2,detect_kernel",
        f"kernel,{us(30)},{us(40)},1,fft_kernel",
        f"memcpy,{us(45)},{us(50)},1,DtoD:4096",
        f"api,{us(0)},{us(25)},mimo_detector12:101,cudaStreamSynchronize",
        f"api,{us(0)},{us(5)},mimo_detector13:102,cudaStreamSynchronize",
    ], "--frames", "2")
    assert percent(text, "GPU running a kernel") == 50.0
    assert percent(text, "GPU running a kernel or a copy") == 60.0
    assert "kernel time summed: 60.0%" in text
    assert re.search(r"idle gaps >= +5 us: +2, +40\.0%", text), text
    assert re.search(r"idle gaps >= +20 us: +0, +0\.0%", text), text
    assert re.search(r"DtoD +1 +10\.0% .*0\.5 a frame", text), text
    assert "by size: 4.0 KB x 1 (10.0%)" in text, text
    assert re.search(r"40\.0% +2 +10\.0 +10\.0 us/frame +detect_kernel", text), text
    assert "3 launches, 1.5 a frame, 15.0 us of kernels a frame" in text
    assert re.search(r"mimo_detector +x2 +30\.0%", text), text


def test_timeline_window_from_the_end(tmp_path):
    """--end-margin and --span: the window ends that long before the last kernel's end
    and is that long; a kernel crossing its start is clipped to it."""
    text = summarise(tmp_path, [
        f"kernel,{us(0)},{us(100)},1,a_kernel",
        f"kernel,{us(150)},{us(200)},1,a_kernel",
    ], "--end-margin", "0.00005", "--span", "0.0001")  # window 50-150 us
    assert "window 0.000 s (0.000 s after the first record)" in text
    assert percent(text, "GPU running a kernel") == 50.0  # 50-100 of 50-150


def test_sionna_peer_snr_grid_and_crossing():
    """The peer tool's loss is the difference of two crossings of BER 1e-2, each
    log-linear between the points around it: 1e-1 at 10 dB and 1e-3 at 20 dB cross at 15
    dB; a curve that never reaches 1e-2 has none; a point of 0 errors just below 1e-2
    takes its own SNR. Bad grids are refused."""
    import argparse
    import importlib.util
    import pytest
    spec = importlib.util.spec_from_file_location("sionna_peer", PEER)
    peer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(peer)  # imports no Sionna: main() does
    assert peer.parse_snr("8:2:14") == [8, 10, 12, 14]
    for bad in ("8:0:14", "14:2:8", "1:2", "0:0.001:30"):
        with pytest.raises(argparse.ArgumentTypeError):
            peer.parse_snr(bad)
    assert abs(peer.snr_at([10, 20], [1e-1, 1e-3]) - 15) < 1e-12
    assert abs(peer.snr_at([0, 10, 20, 30], [0.3, 1e-1, 1e-3, 0]) - 15) < 1e-12
    assert peer.snr_at([10, 20], [0.2, 0.05]) is None
    assert peer.snr_at([10, 20], [0.02, 0]) == 20


def test_python_tools_refuse_bad_options_in_one_line(tmp_path):
    """Each Python tool, given an option it cannot take, prints one line naming the option
    (or the file) and what it accepts and exits with code 2: no traceback, nothing run
    (issue: 9 of 9 such calls ended in tracebacks)."""
    import json
    import shutil
    from gnuradio import gpumimo
    recording = tmp_path / "rec"
    recording.mkdir()
    for f in (SOURCE / "examples" / "recordings").glob("sim_4x4_16qam*"):
        shutil.copy(f, recording / f.name)
    collection = str(recording / "sim_4x4_16qam.sigmf-collection")
    cases = [
        ("gpumimo_replay", ["--recording", collection, "--algorithms", "MMSE"], "--algorithms"),
        ("gpumimo_replay", ["--recording", collection, "--algorithms", "kbest:16"], "--algorithms"),
        ("gpumimo_make_recording", ["--out", str(tmp_path / "x"), "--snr", "nan"], "--snr"),
        ("gpumimo_make_recording", ["--out", str(tmp_path / "x"), "--seed", "-1"], "--seed"),
        ("gpumimo_make_recording", ["--out", str(tmp_path / "x"), "--antennas", "1", "--streams", "2"],
         "--antennas"),
        ("gpumimo_make_recording", ["--out", str(tmp_path / "x"), "--frames", "1e18"], "--frames"),
        ("gpumimo_rx_rate", ["--algorithm", "bogus"], "--algorithm"),
        ("gpumimo_rx_rate", ["--target", "122.88"], "--target"),  # samples/s, not Msample/s
        ("gpumimo_ofdm_rate", ["--fft-len", "7"], "--fft-len"),
        ("gpumimo_ofdm_rate", ["--carriers", "600"], "--carriers"),
        ("gpumimo_ber_table", ["--nt", "0"], "--nt"),
    ]
    if gpumimo.cuda_device_count()[0] == 0:
        cases.append(("gpumimo_replay", ["--recording", collection, "--backend", "cuda"], "--backend"))
    # The description's antennas against the collection's channels (4).
    frame_json = recording / "sim_4x4_16qam.frame.json"
    frame_json.write_text(json.dumps(dict(json.loads(frame_json.read_text()), streams=2, antennas=2)))
    cases.append(("gpumimo_replay", ["--recording", collection, "--png", ""], "names 2 antennas"))
    for tool, args, named in cases:
        out = subprocess.run([sys.executable, str(SOURCE / "apps" / tool), *args],
                             capture_output=True, text=True, timeout=120, cwd=tmp_path)
        lines = out.stderr.strip().splitlines()
        assert out.returncode == 2, (tool, args, out.returncode, out.stderr)
        assert len(lines) == 1 and named in lines[0] and lines[0].startswith(tool), (tool, args, out.stderr)
        assert not (tmp_path / "x.sigmf-collection").exists()


def test_source_folders_hold_at_most_16_files():
    """Every folder of the repository's sources, tests, scripts and examples holds at most
    16 files (tests/frame once held 23): a folder that grows past that is split by
    feature. The gr_modtool folders hold a file or two per block where gr_modtool looks
    for them, and are left out (docs/architecture.md); so are data (recordings, codes,
    fuzz corpora) and docs."""
    import collections
    tracked = subprocess.run(["git", "ls-files"], cwd=SOURCE, capture_output=True, text=True)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout")
    per_block = {"lib", "include/gnuradio/gpumimo", "python/gpumimo", "grc"}
    data = ("docs", "examples/recordings", "examples/codes", "tests/fuzz/corpus")
    counts = collections.Counter(os.path.dirname(f) or "." for f in tracked.stdout.split())
    assert len(counts) > 30, counts
    crowded = {d: n for d, n in counts.items()
               if n > 16 and d not in per_block and not d.startswith(data)}
    assert not crowded, crowded


def test_the_replay_keeps_the_console_quiet(tmp_path):
    """gpumimo_replay, the README's main job, on the shipped recording with every
    detector: at most 30 lines in all and no line more than 6 times (once, on a machine
    without a GPU, 70 lines, 24 of them the same "no usable GPU" warning, once per block,
    and 24 "set_min_output_buffer" lines). Debian's GNU Radio logs at debug level, which
    this run keeps."""
    import collections
    from gnuradio import gpumimo
    out = subprocess.run([sys.executable, str(SOURCE / "apps" / "gpumimo_replay"), "--png", ""],
                         capture_output=True, text=True, timeout=600, cwd=SOURCE)
    assert out.returncode == 0, out.stderr
    lines = (out.stdout + out.stderr).strip().splitlines()
    print("\n".join(lines))
    repeats = collections.Counter(lines).most_common(1)[0]
    assert len(lines) <= 30, len(lines)
    assert repeats[1] <= 6, repeats
    if gpumimo.cuda_device_count()[0] == 0:
        assert sum("no usable GPU" in line for line in lines) == 1
