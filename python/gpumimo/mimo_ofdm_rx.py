#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The MIMO-OFDM receiver chain as one hierarchical block: synchronisation, the OFDM
FFT, channel estimation and detection, configured from the frame format alone."""

from gnuradio import gr

from . import gpumimo_python as _b


def frame_cp_lengths(preset, streams, modulation, payload_symbols, pilot_interval=0):
    """The cyclic prefixes to give ofdm_fft for these frames: the preset's pattern, or,
    where a frame is not whole periods of it (lte20's seven, in frames of 18 symbols
    with pilot blocks), the prefixes of one frame. ofdm_fft starts the pattern over at
    each frame_start tag; a frame that ends mid-pattern ended its batch there, one frame
    a GPU call (the chain of GPU blocks with pilot blocks at 40% of the stream
    receiver's rate, H200). Whole periods of the one-frame pattern batch back to back.
    Frames longer than ofdm_fft's longest pattern (OFDM_FFT_MAX_CP_PATTERN, 64 symbols)
    keep the preset's."""
    cp = list(_b.numerology(preset)["cp_lengths"])
    symbols = _b.frame_info(preset, streams, modulation, payload_symbols,
                            pilot_interval)["symbols"]
    if symbols % len(cp) == 0 or symbols > _b.OFDM_FFT_MAX_CP_PATTERN:
        return cp
    return [cp[k % len(cp)] for k in range(symbols)]


class mimo_ofdm_rx(gr.hier_block2):
    """antennas complex streams in, one LLR stream out (float, or int8 with
    int8_output): mimo_ofdm_sync -> ofdm_fft (forward, the preset's CP (one frame's
    pattern where frames are not whole periods: frame_cp_lengths), carriers and scale,
    realigned on the frame_start tags) -> mimo_chanest -> mimo_detector.
    detector is a detector_spec (every parameter of the detector) or just a name
    (its defaults). fft_backend and backend pick the FFT's and the detector's backend
    (auto, cuda, cpu), sync_backend the synchroniser's, estimator the channel estimator
    (lmmse, dft, ls). The blocks stay reachable as .sync, .fft, .chanest and .detector.
    With the blocks on the GPU, the frames, carriers and payload between them stay in
    GPU memory (device-resident stream buffers: docs/frame.md); device_buffers=False
    keeps every port of the chain in host memory (for tapping one to a CPU block).
    The channel estimates go from mimo_chanest to mimo_detector as a stream beside the
    payload (estimate_stream=True, core::estimate_items: on the GPU they stay on the
    device too), or, with estimate_stream=False, inside the mimo_chan_est tags.

    fused=True does it all in one stream_receiver instead (synchronisation, FFT,
    estimates and detection; on the GPU the frames never leave the device, samples in
    and LLRs out; backend picks its backend, fft_backend is not used): the same LLRs,
    reachable as .fused, which is also .sync (.fft, .chanest and .detector are None).
    With sync_backend "cpu" or "cuda", or with a code, fused=True is mimo_ofdm_sync
    (.sync, on sync_backend) then one fused_receiver (.fused). code (the transmitter's
    LDPC code) makes the fused receiver decode as well: samples in, bytes of decoded
    information bits out (on the GPU the LLRs never leave the device);
    llr_sink(decoded_input=True) counts them. The separate blocks give LLRs only
    (llr_sink(code=...) decodes those). pilot_interval: the transmitter's pilot blocks
    (frame format 4, docs/frame.md), the channel tracked in time between them, fused or
    not (the separate blocks then pass an estimate per payload symbol)."""

    def __init__(self, preset="small", streams=2, modulation="qpsk", payload_symbols=4,
                 antennas=2, detector="mmse", backend="auto", fft_backend="auto",
                 int8_output=False, int8_scale=8.0, threshold=0.0, device=0, fused=False,
                 estimator="lmmse", code="", sync_backend="auto", device_buffers=True,
                 estimate_stream=True, pilot_interval=0):
        if code and not fused:
            raise ValueError("mimo_ofdm_rx: code (decoding in the receiver) needs "
                             "fused=True; llr_sink(code=...) decodes the separate blocks' LLRs")
        item = gr.sizeof_char if int8_output or code else gr.sizeof_float
        gr.hier_block2.__init__(self, "mimo_ofdm_rx",
                                gr.io_signature(antennas, antennas, gr.sizeof_gr_complex),
                                gr.io_signature(1, 1, item))
        num = _b.numerology(preset)
        if fused and not code and sync_backend == "auto":
            # Synchronisation inside the fused receiver: on the GPU the frames never
            # leave the device (stream_receiver). .sync and .fused are that one block.
            self.fft = self.chanest = self.detector = None
            self.sync = self.fused = _b.stream_receiver(
                preset, streams, modulation, payload_symbols, antennas, detector, backend,
                int8_output, int8_scale, device, estimator, threshold, pilot_interval)
            for a in range(antennas):
                self.connect((self, a), (self.fused, a))
            self.connect(self.fused, self)
            return
        self.sync = _b.mimo_ofdm_sync(preset, streams, modulation, payload_symbols,
                                      antennas, threshold, sync_backend, device,
                                      device_buffers=device_buffers, pilot_interval=pilot_interval)
        if fused:
            self.fft = self.chanest = self.detector = None
            self.fused = _b.fused_receiver(preset, streams, modulation, payload_symbols,
                                           antennas, detector, backend, int8_output,
                                           int8_scale, device, estimator, code, pilot_interval)
            for a in range(antennas):
                self.connect((self, a), (self.sync, a))
                self.connect((self.sync, a), (self.fused, a))
            self.connect(self.fused, self)
            return
        self.fused = None
        cp = frame_cp_lengths(preset, streams, modulation, payload_symbols, pilot_interval)
        self.fft = _b.ofdm_fft(num["fft_len"], cp, num["carriers"],
                               forward=True, scale=num["scale"], channels=antennas,
                               backend=fft_backend, devices=[device], sync_tag="frame_start",
                               device_buffers=device_buffers)
        self.chanest = _b.mimo_chanest(preset, streams, modulation, payload_symbols, antennas,
                                       estimator, False, backend, device,
                                       device_buffers=device_buffers,
                                       pilot_interval=pilot_interval)
        self.detector = _b.mimo_detector(preset, streams, modulation, antennas, detector,
                                         backend, int8_output, int8_scale, device,
                                         device_buffers=device_buffers,
                                         payload_symbols=payload_symbols,
                                         pilot_interval=pilot_interval)
        for a in range(antennas):
            self.connect((self, a), (self.sync, a))
            self.connect((self.sync, a), (self.fft, a))
            self.connect((self.fft, a), (self.chanest, a))
            self.connect((self.chanest, a), (self.detector, a))
        if estimate_stream:
            self.connect((self.chanest, antennas), (self.detector, antennas))
        self.connect(self.detector, self)

    def set_detector(self, detector):
        """Changes the detector while running (a detector_spec or a name)."""
        (self.fused if self.fused is not None else self.detector).set_detector(detector)
