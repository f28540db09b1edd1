#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The APSM multiuser receiver of mimo_ofdm_tx's frames, as one hierarchical block."""

from gnuradio import blocks, gr

from . import gpumimo_python as _b
from .mimo_ofdm_rx import frame_cp_lengths, mimo_ofdm_rx


class apsm_ofdm_rx(gr.hier_block2):
    """APSM multiuser receiver (docs/apsm.md, "A live chain"): several single-antenna
    users, each one stream of mimo_ofdm_tx's frame (all on the same resource elements),
    received on `antennas` ports.

    Inputs: `antennas` streams of complex samples. Output: the users' LLRs in the
    frame's bit order (float, positive means bit 1), whole frames of the payload bits:
    llr_sink(preset, users, modulation, payload_symbols) scores them.

    Inside: mimo_ofdm_sync (frames found on the preamble over all antennas) -> ofdm_fft
    -> apsm_frame_demux (each frame's pilot REs, then its data REs) -> apsm_detector
    (trained on the pilots of frame 0 and of every `train_every`-th frame, 0: the first
    only; a message on the "train" port retrains at the next frame) -> each user's data
    REs (blocks.keep_m_in_n) -> the users interleaved RE by RE (blocks.interleave).
    Every user's soft symbols of the data REs are on .soft_taps[u] (a blocks.copy each:
    connect a constellation sink there). The blocks are .sync, .fft, .demux and
    .detector. `apsm` passes keyword arguments on to apsm_detector (window,
    gaussian_variance, ..., max_training: train on that many of a frame's pilots, evenly
    spread, as the GPU's 4096 requires of an lte20 frame of 6 users); backend runs the
    detector, fft_backend and sync_backend the others; device_buffers puts the
    synchroniser's and the FFT's ports in device memory (off by default: the
    demultiplexer after them reads on the host).
    """

    def __init__(self, preset="small", users=2, modulation="qpsk", payload_symbols=4,
                 antennas=4, backend="auto", device=0, train_every=0, threshold=0.0,
                 sync_backend="auto", fft_backend="auto", ls_guard=True, track=False,
                 antenna_subset=(), device_buffers=False, **apsm):
        gr.hier_block2.__init__(self, "apsm_ofdm_rx",
                                gr.io_signature(antennas, antennas, gr.sizeof_gr_complex),
                                gr.io_signature(1, 1, gr.sizeof_float))
        num = _b.numerology(preset)
        # The demultiplexer reads the FFT's output on the host: in host buffers
        # (device_buffers False) it gets double-mapped memory, and the FFT keeps a batch
        # in flight (streamed); a device buffer's host side is single-mapped, where GNU
        # Radio moves the unread items at its end and the FFT waits for each batch.
        self.sync = _b.mimo_ofdm_sync(preset, users, modulation, payload_symbols, antennas,
                                      threshold, sync_backend, device,
                                      device_buffers=device_buffers)
        cp = frame_cp_lengths(preset, users, modulation, payload_symbols)
        self.fft = _b.ofdm_fft(num["fft_len"], cp, num["carriers"],
                               forward=True, scale=num["scale"], channels=antennas,
                               backend=fft_backend, devices=[device], sync_tag="frame_start",
                               device_buffers=device_buffers)
        self.demux = _b.apsm_frame_demux(preset, users, modulation, payload_symbols,
                                         antennas, train_every)
        pilots = _b.apsm_frame_training(preset, users, modulation, payload_symbols)
        # pi/2-BPSK leaves apsm_frame_demux turned back to BPSK.
        frame = _b.frame_info(preset, users, modulation, payload_symbols)
        mod, bits = frame["detected_modulation"], frame["bits_per_symbol"]
        self.detector = _b.apsm_detector(antennas, users, mod, pilots.ravel().tolist(),
                                         backend=backend, device=device, ls_guard=ls_guard,
                                         track=track, antenna_subset=list(antenna_subset),
                                         **apsm)
        training, data = self.demux.training_len(), self.demux.data_len()
        res = training + data
        for a in range(antennas):
            self.connect((self, a), (self.sync, a))
            self.connect((self.sync, a), (self.fft, a))
            self.connect((self.fft, a), (self.demux, a))
            self.connect((self.demux, a), (self.detector, a))
        llr_item = gr.sizeof_float * bits
        self.interleave = blocks.interleave(llr_item, 1)
        self.soft_taps = []
        for u in range(users):
            data_soft = blocks.keep_m_in_n(gr.sizeof_gr_complex, data, res, training)
            tap = blocks.copy(gr.sizeof_gr_complex)
            self.connect((self.detector, u), data_soft, tap, blocks.null_sink(gr.sizeof_gr_complex))
            self.soft_taps.append(tap)
            data_llr = blocks.keep_m_in_n(llr_item, data, res, training)
            self.connect((self.detector, users + u), data_llr, (self.interleave, u))
        self.connect(self.interleave, blocks.vector_to_stream(gr.sizeof_float, bits), self)
        # A message on "train": the demultiplexer tags the next frame's pilots.
        self.message_port_register_hier_in("train")
        self.msg_connect(self, "train", self.demux, "train")

    def set_threshold(self, threshold):
        """The synchroniser's detection threshold (0: automatic), while running."""
        self.sync.set_threshold(threshold)


def apsm_beside_mmse(preset, users, modulation, payload_symbols, antennas, snr_db, frames,
                     cfo=0.0, seed=7, backend="cpu", **apsm):
    """Simulated users side by side in both receivers: mimo_ofdm_tx's `users` streams
    (PRBS seed 5) through mimo_channel (flat Rayleigh, a delay of 37 samples, the carrier
    offset, `seed`) into apsm_ofdm_rx (the detector on `backend`, keyword arguments
    `apsm` passed on) and, beside it on the same samples, the MMSE chain mimo_ofdm_rx on
    the CPU; `frames` frames and the synchroniser's margin. Returns the APSM receiver
    and the two llr_sinks (APSM's, MMSE's), run."""
    tb = gr.top_block()
    tx = _b.mimo_ofdm_tx(preset, users, modulation, payload_symbols, 5, 100)
    channel = _b.mimo_channel(users, antennas, [1.0], snr_db, 1.0, cfo, 37, seed)
    rx = apsm_ofdm_rx(preset, users, modulation, payload_symbols, antennas, backend=backend,
                      sync_backend="cpu", fft_backend="cpu", **apsm)
    mmse = mimo_ofdm_rx(preset, users, modulation, payload_symbols, antennas, "mmse",
                        backend="cpu", fft_backend="cpu", sync_backend="cpu")
    sinks = [_b.llr_sink(preset, users, modulation, payload_symbols, prbs_seed=5)
             for _ in range(2)]
    for k in range(users):
        tb.connect((tx, k), blocks.head(gr.sizeof_gr_complex, frames * tx.frame_len()),
                   (channel, k))
    for a in range(antennas):
        tb.connect((channel, a), (rx, a))
        tb.connect((channel, a), (mmse, a))
    tb.connect(rx, sinks[0])
    tb.connect(mmse, sinks[1])
    tb.run()
    return rx, sinks[0], sinks[1]
