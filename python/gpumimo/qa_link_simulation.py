#!/usr/bin/env python3
#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""gpumimo.link_simulate() and the LDPC bindings from Python: the uncoded 1x1 QPSK BER
against the closed form, a coded run whose code corrects, reproducibility by seed,
progress, refusals; LDPC codewords against H written out by numpy, a decode of noisy
codewords; the figure tool's interpolation and its PNG."""

import math
import os
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import seeded_rng  # noqa: E402

from gnuradio import gpumimo  # noqa: E402


def _seed(salt):
    return int(seeded_rng(salt).integers(0, 2**62))


def test_uncoded_qpsk_awgn_matches_q_function():
    result = gpumimo.link_simulate([1.0, 5.0], nt=1, nr=1, modulation="qpsk", detector="zf",
                                   channel="awgn", coded=False, frame_errors=0,
                                   max_frames=40, backend="cpu", seed=_seed(1))
    assert result["backend"] == "cpu"
    for p in result["points"]:
        snr = 10 ** (p["snr_db"] / 10)
        expected = 0.5 * math.erfc(math.sqrt(snr) / math.sqrt(2))
        n = p["info_bits"]
        assert n == 40 * 2304 and p["frames"] == 40
        assert abs(p["ber"] - expected) < 5 * math.sqrt(expected * (1 - expected) / n) + 1 / n


@pytest.mark.parametrize("modulation", ["bpsk", "pi/2-bpsk"])
def test_uncoded_bpsk_awgn_matches_q_function(modulation):
    """BPSK's one bit on both axes (and pi/2-BPSK's odd symbols turned by j, turned back
    by the detector): BER = Q(sqrt(2 Es / N0)) = erfc(sqrt(SNR)) / 2 over AWGN, half
    QPSK's exponent."""
    result = gpumimo.link_simulate([0.0, 4.0], nt=1, nr=1, modulation=modulation,
                                   detector="zf", channel="awgn", coded=False,
                                   frame_errors=0, max_frames=40, backend="auto",
                                   seed=_seed(5))
    assert result["backend"] == "cpu"  # the GPU detectors take QPSK to 256-QAM
    for p in result["points"]:
        snr = 10 ** (p["snr_db"] / 10)
        expected = 0.5 * math.erfc(math.sqrt(snr))
        n = p["info_bits"]
        assert p["frames"] == 40 and n > 0
        assert abs(p["ber"] - expected) < 5 * math.sqrt(expected * (1 - expected) / n) + 1 / n


def test_coded_run_corrects_and_repeats_by_seed():
    seed = _seed(2)
    calls = []
    kwargs = dict(nt=2, nr=2, modulation="16qam", detector="mmse", frame_errors=0,
                  max_frames=12, backend="cpu", seed=seed)
    first = gpumimo.link_simulate([14.0], progress=calls.append, **kwargs)
    again = gpumimo.link_simulate([14.0], **kwargs)
    p = first["points"][0]
    assert calls and calls[-1]["frames"] == p["frames"] == 12
    assert p["raw_ber"] > 0 and p["ber"] < p["raw_ber"]
    assert again["points"][0]["raw_bit_errors"] == p["raw_bit_errors"]
    assert again["points"][0]["bit_errors"] == p["bit_errors"]
    assert first["seed"] == seed


def test_refusals_raise_value_error():
    with pytest.raises(ValueError):
        gpumimo.link_simulate([5.0], nt=2, nr=3, channel="awgn", backend="cpu", max_frames=1)
    with pytest.raises(ValueError):
        gpumimo.link_simulate([5.0], detector="best", backend="cpu", max_frames=1)
    with pytest.raises(ValueError):
        gpumimo.link_simulate([5.0], backend="gpu", max_frames=1)


def test_ldpc_encoder_and_decoder():
    rng = seeded_rng(3)
    code = gpumimo.wimax_rate_half_code(576)
    enc = gpumimo.ldpc_encoder(code)
    assert (enc.n, enc.k) == (576, 288)
    H = np.zeros((code.m, code.n), dtype=np.uint8)
    for row, bits in enumerate(code.checks):
        H[row, bits] = 1
    info = rng.integers(0, 2, size=(9, enc.k), dtype=np.uint8)
    words = enc.encode(info)
    assert words.shape == (9, 576)
    assert not np.any((H.astype(int) @ words.T.astype(int)) % 2)
    np.testing.assert_array_equal(words[:, enc.info_positions], info)
    # BPSK at Eb/N0 = 4 dB: every frame decodes; core LLRs are ln P(1)/P(0).
    sigma2 = 1 / (2 * 0.5 * 10 ** 0.4)
    x = 1 - 2 * words.astype(float) + rng.normal(0, math.sqrt(sigma2), words.shape)
    llr = (-2 * x / sigma2).astype(np.float32)
    cfg = gpumimo.ldpc_decoder_config()
    cfg.algorithm = "sum_product"
    cfg.max_iterations = 30
    bits, iterations, satisfied = gpumimo.cpu_ldpc_decoder(code, cfg).decode(llr)
    np.testing.assert_array_equal(bits, words)
    assert satisfied.all() and (iterations >= 1).all()
    with pytest.raises(ValueError):
        gpumimo.cpu_ldpc_decoder(code, cfg).decode(llr[:, :100])
    # The factory's decoder (gpumimo.ldpc_decoder_engine, any backend) gives the reference's
    # decisions; on the GPU in float32 the same codewords (every frame decodes here).
    for backend in ["cpu"] + (["cuda"] if gpumimo.cuda_device_count()[0] else []):
        dec = gpumimo.ldpc_decoder_engine(code, cfg, backend=backend, max_frames=16)
        assert dec.backend() == backend
        got, _, ok = dec.decode(llr)
        np.testing.assert_array_equal(got, words)
        assert ok.all()
        with pytest.raises(ValueError):
            dec.decode(llr[:, :100])


def test_snr_at_fer_interpolates_in_log_fer():
    pts = [{"snr_db": 0.0, "fer": 1.0}, {"snr_db": 2.0, "fer": 1e-1},
           {"snr_db": 4.0, "fer": 1e-3}]
    assert gpumimo.snr_at_fer(pts, 1e-2) == pytest.approx(3.0)
    assert gpumimo.snr_at_fer(pts, 1e-1 * 0.999) == pytest.approx(2.0, abs=1e-3)
    assert gpumimo.snr_at_fer(pts, 1e-5) is None


def test_plot_tool_writes_png(tmp_path):
    csv = tmp_path / "r.csv"
    header = ("title,detector,nt,nr,modulation,channel,code,decoder,iterations,seed,backend,"
              "snr_db,ebn0_db,frames,frame_errors,fer,info_bits,bit_errors,ber,raw_ber,"
              "mean_iterations,seconds,frames_per_s\n")
    rows = [f'"2x2 qpsk",{det},2,2,qpsk,rayleigh,"c",min_sum,10,1,cpu,{s},{s},100,{e},'
            f'{e / 100},1000,{e},{e / 1000},0.1,3,1,100\n'
            for det in ("ml", "zf") for s, e in ((0, 100), (4, 10), (8, 0))]
    csv.write_text(header + "".join(rows))
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "apps",
                        "gpumimo_link_plot")
    out = subprocess.run([sys.executable, tool, str(csv), "--out-dir", str(tmp_path)],
                         capture_output=True, text=True, check=True).stdout
    png = tmp_path / "2x2-qpsk.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "FER 0.01 at" in out


@pytest.mark.parametrize("backend,algorithm", [("cpu", "min_sum"), ("auto", "min_sum"),
                                               ("cpu", "min_sum_half"), ("auto", "min_sum_half")])
def test_ldpc_decoder_block_decodes_a_stream(backend, algorithm):
    """The ldpc_decoder block: random codewords of the 802.16e n = 576 code with noisy
    LLRs in, every codeword's information bits out with an ok tag, against the core's
    decoder on the same LLRs; a codeword of garbage and one of zeros (no information,
    though its zero decisions hold every check) come out with ok false. In single and
    half precision (the GPU's half decoder is the CPU's bit for bit)."""
    from gnuradio import blocks, gr
    import pmt
    rng = seeded_rng(40)
    code = gpumimo.wimax_rate_half_code(576)
    enc = gpumimo.ldpc_encoder(code)
    k, n, words = enc.k, 576, 40
    info = rng.integers(0, 2, size=(words, k), dtype=np.uint8)
    cw = enc.encode(info)
    llr = (2.0 * cw - 1.0) * 4.0 + rng.normal(0, 2.0, size=cw.shape)  # positive means 1
    llr[7] = rng.normal(0, 1.0, size=n)  # no information: fails its checks
    llr[12] = 0.0  # no information at all: not decoded
    llr = llr.astype(np.float32)
    tb = gr.top_block()
    dec = gpumimo.ldpc_decoder("wimax_576", algorithm, 10, backend, 0, 16)
    src = blocks.vector_source_f(llr.ravel().tolist(), False)
    sink = blocks.vector_sink_b()
    tb.connect(src, dec, sink)
    tb.run()
    assert dec.codeword_bits() == n and dec.info_bits() == k
    out = np.array(sink.data(), dtype=np.uint8).reshape(words, k)
    cfg = gpumimo.ldpc_decoder_config()
    cfg.algorithm = algorithm
    bits, iterations, satisfied = gpumimo.cpu_ldpc_decoder(code, cfg).decode(llr)
    want = bits[:, enc.info_positions]
    np.testing.assert_array_equal(out, want)
    good = [i for i in range(words) if i not in (7, 12)]
    np.testing.assert_array_equal(out[good], info[good])
    tags = [t for t in sink.tags() if pmt.symbol_to_string(t.key) == "ldpc"]
    assert [t.offset for t in tags] == [i * k for i in range(words)]
    ok = [pmt.to_bool(pmt.dict_ref(t.value, pmt.intern("ok"), pmt.PMT_NIL)) for t in tags]
    assert ok == [bool(s) for s in satisfied] and not ok[7] and not ok[12]
    assert all(ok[i] for i in good)
    assert dec.codewords() == words and dec.failed_codewords() == 2
    its = [pmt.to_long(pmt.dict_ref(t.value, pmt.intern("iterations"), pmt.PMT_NIL)) for t in tags]
    assert its == list(iterations) and dec.mean_iterations() == pytest.approx(np.mean(iterations))


def test_ldpc_decoder_block_refuses_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="wimax_<n>"):
        gpumimo.ldpc_decoder("wimax_x")
    with pytest.raises(ValueError):
        gpumimo.ldpc_decoder("wimax_500")
    with pytest.raises((RuntimeError, ValueError)):
        gpumimo.ldpc_decoder(str(tmp_path / "missing.alist"))
    with pytest.raises(ValueError):
        gpumimo.ldpc_decoder("wimax_576", "belief")
    with pytest.raises(ValueError):
        gpumimo.ldpc_decoder("wimax_576", max_codewords=0)
