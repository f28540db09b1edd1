#!/usr/bin/env python3
# Copyright 2026 gr-gpumimo authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""NVIDIA Sionna's OFDM receiver as the peer of gpumimo_rx_quality: its loss against
perfect channel knowledge on Sionna's own TR 38.901 TDL channels, for the side-by-side
table in docs/performance.md. It runs where Sionna (PyPI sionna-no-rt 2.x, PyTorch) is
installed, on the GPU machine; nothing in the module's build or tests needs it.

The link, chosen to match gpumimo_rx_quality's fft512 preset: 400 subcarriers at 15 kHz
(the fft512 preset's used carriers), 14 OFDM symbols, one transmitter of `--streams`
streams (one per antenna, no precoding), `--antennas` receive antennas, uncoded QAM,
Sionna's kronecker pilot pattern on two OFDM symbols (`--pilot-symbols`), the frequency
domain channel of Sionna's TDL model (a fresh draw per batch example, Doppler from
`--doppler-hz` at 3.5 GHz) normalised to unit power per antenna pair. Three receivers,
each with Sionna's LMMSE equaliser and max-log demapping (`LinearDetector("lmmse")`):
perfect CSI; least squares with Sionna's LMMSE interpolation (`LMMSEChannelEstimator`,
frequency then time, with the TDL model's own covariance matrices, tdl_freq_cov_mat and
tdl_time_cov_mat); least squares with linear interpolation. SNR = received power per
antenna over N0, as gpumimo_rx_quality defines it. Printed per SNR: each receiver's
BER; then the SNR at BER 1e-2 (log-linear between the points around it) and each
estimated receiver's loss against perfect CSI there, and the BER at the top SNR (the
floor).

    python3 sionna_peer.py --model C --delay-spread 300e-9 --snr 6:2:30
"""
import argparse
import math
import sys


def parse_snr(text):
    parts = [float(v) for v in text.split(":")]
    if len(parts) != 3 or parts[1] <= 0 or parts[2] < parts[0] or (parts[2] - parts[0]) / parts[1] > 200:
        raise argparse.ArgumentTypeError("--snr is FIRST:STEP:LAST in dB, STEP > 0, at most 200 points")
    n = int(round((parts[2] - parts[0]) / parts[1])) + 1
    return [parts[0] + i * parts[1] for i in range(n)]


def snr_at(snrs, bers, target=1e-2):
    """The SNR where BER crosses `target`, log-linear between the points around it."""
    for i in range(1, len(snrs)):
        a, b = bers[i - 1], bers[i]
        if a >= target > b:
            if b <= 0:
                return snrs[i]
            la, lb, lt = math.log10(a), math.log10(b), math.log10(target)
            return snrs[i - 1] + (snrs[i] - snrs[i - 1]) * (la - lt) / (la - lb)
    return None


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default="A", choices=["A", "B", "C"], help="TR 38.901 TDL profile (NLOS)")
    p.add_argument("--delay-spread", type=float, default=30e-9, help="seconds")
    p.add_argument("--doppler-hz", type=float, default=0.0, help="maximum Doppler at 3.5 GHz")
    p.add_argument("--streams", type=int, default=2)
    p.add_argument("--antennas", type=int, default=4)
    p.add_argument("--bits", type=int, default=4, choices=[2, 4, 6, 8], help="bits per QAM symbol")
    p.add_argument("--snr", type=parse_snr, default=parse_snr("8:2:30"))
    # Sionna's LMMSE estimator holds per-frame 400 x 400 filters of every antenna and
    # stream: 256 frames a batch asked for more than the H200's 140 GB.
    p.add_argument("--batch", type=int, default=32, help="frames (channel draws) per batch")
    p.add_argument("--batches", type=int, default=16, help="batches per SNR")
    p.add_argument("--pilot-symbols", default="2,11", help="the OFDM symbols carrying pilots")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)

    import numpy as np
    import torch
    import sionna.phy as sp
    from sionna.phy.channel import OFDMChannel
    from sionna.phy.channel.tr38901 import TDL
    from sionna.phy.mapping import BinarySource, Mapper
    from sionna.phy.mimo import StreamManagement
    from sionna.phy.ofdm import (LinearDetector, LMMSEChannelEstimator, LSChannelEstimator,
                                 ResourceGrid, ResourceGridMapper, tdl_freq_cov_mat,
                                 tdl_time_cov_mat)

    sp.config.seed = args.seed
    fc, scs, carriers, symbols = 3.5e9, 15e3, 400, 14
    speed = args.doppler_hz * 299792458.0 / fc
    pilots = [int(s) for s in args.pilot_symbols.split(",")]
    rg = ResourceGrid(num_ofdm_symbols=symbols, fft_size=carriers, subcarrier_spacing=scs,
                      num_tx=1, num_streams_per_tx=args.streams, pilot_pattern="kronecker",
                      pilot_ofdm_symbol_indices=pilots)
    sm = StreamManagement(np.ones([1, 1], int), args.streams)
    source = BinarySource()
    mapper = Mapper("qam", args.bits)
    rg_mapper = ResourceGridMapper(rg)
    tdl = TDL(args.model, args.delay_spread, fc, min_speed=speed, max_speed=speed,
              num_rx_ant=args.antennas, num_tx_ant=args.streams)
    channel = OFDMChannel(tdl, rg, normalize_channel=True, return_channel=True)
    cov_f = tdl_freq_cov_mat(args.model, scs, carriers, args.delay_spread)
    cov_t = tdl_time_cov_mat(args.model, speed, fc, rg.ofdm_symbol_duration, symbols)
    receivers = {
        "lmmse-interp": LMMSEChannelEstimator(rg, cov_t, cov_f, order="f-t"),
        "ls-linear": LSChannelEstimator(rg, interpolation_type="lin"),
    }
    detector = LinearDetector("lmmse", "bit", "maxlog", rg, sm, constellation_type="qam",
                              num_bits_per_symbol=args.bits)
    n_bits = rg.num_data_symbols * args.bits
    names = ["perfect"] + list(receivers)
    bers = {n: [] for n in names}
    import sionna
    print(f"sionna {getattr(sionna, '__version__', '?')} torch {torch.__version__} on "
          f"{sp.config.device}: TDL-{args.model} {args.delay_spread * 1e9:g} ns, {args.doppler_hz:g} Hz, "
          f"{args.streams}x{args.antennas}, {2 ** args.bits}-QAM, {carriers} x {scs / 1e3:g} kHz, "
          f"{symbols} symbols, pilots on {pilots}, {args.batches} x {args.batch} frames per SNR, "
          f"seed {args.seed}")
    print("snr_db " + " ".join(f"{n:>13}" for n in names))
    with torch.no_grad():
        for snr in args.snr:
            # Unit power per stream and antenna pair: received power per antenna = streams.
            no = torch.tensor(args.streams * 10 ** (-snr / 10), device=sp.config.device)
            errors = {n: 0 for n in names}
            total = 0
            for _ in range(args.batches):
                b = source([args.batch, 1, args.streams, n_bits])
                x = rg_mapper(mapper(b))
                y, h = channel(x, no)
                est = {"perfect": (h, torch.zeros((), device=h.device))}
                for name, estimator in receivers.items():
                    est[name] = estimator(y, no)
                for name in names:
                    h_hat, err_var = est[name]
                    llr = detector(y, h_hat, err_var, no)
                    errors[name] += int(((llr > 0).to(b.dtype) != b).sum().item())
                total += b.numel()
            for name in names:
                bers[name].append(errors[name] / total)
            print(f"{snr:6.1f} " + " ".join(f"{bers[n][-1]:13.3e}" for n in names), flush=True)
    ref = snr_at(args.snr, bers["perfect"])
    print(f"SNR at BER 1e-2: perfect CSI {ref if ref is None else round(ref, 2)} dB")
    for name in receivers:
        at = snr_at(args.snr, bers[name])
        loss = None if at is None or ref is None else at - ref
        print(f"  {name}: {'-' if at is None else f'{at:.2f} dB'}, loss "
              f"{'-' if loss is None else f'{loss:.2f} dB'}, BER at {args.snr[-1]:g} dB "
              f"{bers[name][-1]:.2e} (perfect CSI {bers['perfect'][-1]:.2e})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
