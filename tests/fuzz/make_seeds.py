#!/usr/bin/env python3
#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Writes the fuzz harnesses' seed inputs into tests/fuzz/corpus/<harness>/seed_*:
valid files (the shipped recording's metadata, an alist code, a small APSM recording)
and the hostile cases of docs/reliability.md (path traversal, sizes no file can hold,
negative or impossible fields, binary junk). The corpora also hold what fuzzing found
interesting (libFuzzer's -merge=1 output); this script only (re)writes the seeds."""

import json
import pathlib
import struct
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
REC = ROOT / "examples" / "recordings"


def write(harness, name, data):
    d = HERE / "corpus" / harness
    d.mkdir(parents=True, exist_ok=True)
    (d / f"seed_{name}").write_bytes(data if isinstance(data, bytes) else data.encode())


def meta_seeds():
    meta = (REC / "sim_4x4_16qam_ch0.sigmf-meta").read_text()
    size = (REC / "sim_4x4_16qam_ch0.sigmf-data").stat().st_size
    write("fuzz_sigmf_meta", "shipped", struct.pack("<Q", size) + meta.encode())
    m = json.loads(meta)
    variants = {
        "negative_start": lambda j: j["captures"][0].update({"core:sample_start": -5}),
        "impossible_datetime": lambda j: j["captures"][0].update(
            {"core:datetime": "2026-02-30T25:61:61Z"}),
        "capture_past_end": lambda j: j["captures"].append({"core:sample_start": 10 ** 12}),
        "sha512": lambda j: j["global"].update({"core:sha512": "ab" * 64}),
        "bad_sha512": lambda j: j["global"].update({"core:sha512": "xyz"}),
        "string_rate": lambda j: j["global"].update({"core:sample_rate": "fast"}),
        "huge_start": lambda j: j["captures"][0].update({"core:sample_start": 2 ** 64 - 1}),
    }
    for name, edit in variants.items():
        j = json.loads(meta)
        edit(j)
        write("fuzz_sigmf_meta", name, struct.pack("<Q", size) + json.dumps(j).encode())
    write("fuzz_sigmf_meta", "binary", struct.pack("<Q", 7) + b"\xff\xfe{\x00\x81garbage\x00")
    del m


def collection_seeds():
    write("fuzz_sigmf_collection", "shipped", (REC / "sim_4x4_16qam.sigmf-collection").read_text())
    for name, streams in {
        "traversal": [{"name": "../../x/secret"}],
        "absolute": [{"name": "/abs/path"}],
        "twice": [{"name": "a"}, {"name": "a"}],
        "draft_arrays": [["a", "00"], ["b"]],
        "empty_name": [{"name": ""}],
        "nested_dots": [{"name": "a/./../../b"}],
    }.items():
        write("fuzz_sigmf_collection", name,
              json.dumps({"collection": {"core:streams": streams}}))


def frame_seeds():
    frame = json.loads((REC / "sim_4x4_16qam.frame.json").read_text())
    write("fuzz_frame_description", "shipped", json.dumps(frame))
    for name, (key, value) in {
        "huge_payload": ("payload_symbols", 2 * 10 ** 9),
        "string_streams": ("streams", "4"),
        "float_seed": ("prbs_seed", 2026.5),
        "zero_seed": ("prbs_seed", 8388608),
        "bad_preset": ("preset", "lte100"),
        "negative_gap": ("gap", -1),
        "nan_snr": ("snr_db", "NaN"),
        "old_version": ("frame_version", 1),
        "previous_version": ("frame_version", 2),
        "file_code": ("code", "/etc/passwd"),
        "odd_code": ("code", "wimax_2305"),
        "huge_version": ("frame_version", 2 ** 63),
        "pilot_blocks": ("pilot_interval", 1),
        "huge_pilot_interval": ("pilot_interval", 2 ** 40),
        "format3_pilot_interval": ("frame_version", 3),  # with the shipped pilot_interval
    }.items():
        f = dict(frame)
        f[key] = value
        write("fuzz_frame_description", name, json.dumps(f))
    write("fuzz_frame_description", "not_object", "[1, 2, 3]")


def alist_seeds():
    write("fuzz_alist", "small", "4 2\n1 2\n1 1 1 1\n2 2\n1\n1\n2\n2\n1 2\n3 4\n")
    write("fuzz_alist", "huge_header", "1073741824 1\n1 2\n")
    write("fuzz_alist", "negative", "-4 2\n1 2\n")
    alist = ROOT.parent / "shared" / "data" / "ldpc" / "wimax_2304_r12.alist"
    if alist.is_file():
        write("fuzz_alist", "wimax_2304", alist.read_text())


def container(arrays):
    b = struct.pack("<i", len(arrays))
    for name, _ in arrays:
        b += struct.pack("<i", len(name)) + name.encode()
    for _, dims in arrays:
        count = 1
        for d in dims:
            count *= d
        b += struct.pack("<i", len(dims)) + struct.pack(f"<{len(dims)}i", *dims)
        b += struct.pack(f"<{count}f", *([1.0] * count))
    return b


def apsm_seeds():
    for name, (n_train, n_data) in {"small": (4, 3), "no_data": (4, 0)}.items():
        rx = container([("rxSigTraining", [n_train, 2, 2]), ("rxSigData", [n_data, 2, 2])])
        tx = container([("mod_training", [n_train, 1, 2]), ("mod_data", [n_data, 1, 2])])
        write("fuzz_apsm_container", name, struct.pack("<I", len(rx)) + rx + tx)
    claim = struct.pack("<ii", 1, 1) + b"a" + struct.pack("<i3i", 3, 1 << 20, 1 << 10, 2)
    write("fuzz_apsm_container", "claims_too_much", struct.pack("<I", len(claim)) + claim)


def cli_seeds():
    """What users and the reliability review typed into the C++ tools' options."""
    for name, text in {"whole": "100", "exponent": "1e18", "sweep": "8:2:30",
                       "sweep_huge": "0:1e-12:1", "sweep_nan": "nan:1:5", "names": "mmse,kbest:16",
                       "empty_name": "a,,b", "space": " 5", "seed_over": "18446744073709551616",
                       "negative": "-1"}.items():
        write("fuzz_cli_numbers", name, text)


if __name__ == "__main__":
    meta_seeds()
    collection_seeds()
    frame_seeds()
    alist_seeds()
    apsm_seeds()
    cli_seeds()
    sys.exit(0)
