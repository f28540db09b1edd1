#!/usr/bin/env python3
# -*- coding: utf-8 -*-

#
# SPDX-License-Identifier: GPL-3.0
#
# GNU Radio Python Flow Graph
# Title: MIMO-OFDM simulated loopback
# Author: gr-gpumimo authors
# Copyright: 2026
# Description: No hardware: the MIMO-OFDM frame source (2 streams, 16-QAM, small numerology) through the channel simulator (4 antennas, 3-tap delay line, carrier and timing offsets, AWGN) into the receiver chain (sync, OFDM FFT, channel estimation, detection) and the LLR sink, which counts bit and frame errors against the PRBS payload.
# GNU Radio version: 3.10.5.1

from gnuradio import blocks
from gnuradio import gpumimo
from gnuradio import gr
from gnuradio.filter import firdes
from gnuradio.fft import window
import sys
import signal
from argparse import ArgumentParser
from gnuradio.eng_arg import eng_float, intx
from gnuradio import eng_notation




class sim_loopback(gr.top_block):

    def __init__(self, frames=200, snr_db=30, algorithm='mmse', seed=1):
        gr.top_block.__init__(self, "MIMO-OFDM simulated loopback", catch_exceptions=True)

        ##################################################
        # Parameters
        ##################################################
        self.frames = frames
        self.snr_db = snr_db
        self.algorithm = algorithm
        self.seed = seed

        ##################################################
        # Variables
        ##################################################
        self.preset = preset = 'small'
        self.payload_symbols = payload_symbols = 10
        self.modulation = modulation = '16qam'
        self.frame = frame = gpumimo.frame_info(preset, 2, modulation, payload_symbols)

        ##################################################
        # Blocks
        ##################################################

        self.tx = gpumimo.mimo_ofdm_tx('small', 2, '16qam', payload_symbols, seed=seed, gap=100, payload='prbs')
        self.sink = gpumimo.llr_sink('small', 2, '16qam', payload_symbols, False, 8.0, '', seed, 0, '')
        self.rx = gpumimo.mimo_ofdm_rx('small', 2, '16qam', payload_symbols, 4, algorithm, backend='auto', fft_backend='auto', int8_output=False, threshold=0.7, kbest_k=16, nway_passes=0, device=0, fused=False)
        self.head = blocks.head(gr.sizeof_float*1, (frames * frame['payload_bits']))
        self.channel = gpumimo.mimo_channel(2, 4, [0.7, 0.2, 0.1], snr_db, frame['payload_power'], (0.2 / 64), 123, (seed + 1000))


        ##################################################
        # Connections
        ##################################################
        self.connect((self.channel, 1), (self.rx, 1))
        self.connect((self.channel, 0), (self.rx, 0))
        self.connect((self.channel, 3), (self.rx, 3))
        self.connect((self.channel, 2), (self.rx, 2))
        self.connect((self.head, 0), (self.sink, 0))
        self.connect((self.rx, 0), (self.head, 0))
        self.connect((self.tx, 1), (self.channel, 1))
        self.connect((self.tx, 0), (self.channel, 0))


    def get_frames(self):
        return self.frames

    def set_frames(self, frames):
        self.frames = frames
        self.head.set_length((self.frames * self.frame['payload_bits']))

    def get_snr_db(self):
        return self.snr_db

    def set_snr_db(self, snr_db):
        self.snr_db = snr_db

    def get_algorithm(self):
        return self.algorithm

    def set_algorithm(self, algorithm):
        self.algorithm = algorithm

    def get_seed(self):
        return self.seed

    def set_seed(self, seed):
        self.seed = seed

    def get_preset(self):
        return self.preset

    def set_preset(self, preset):
        self.preset = preset
        self.set_frame(gpumimo.frame_info(self.preset, 2, self.modulation, self.payload_symbols))

    def get_payload_symbols(self):
        return self.payload_symbols

    def set_payload_symbols(self, payload_symbols):
        self.payload_symbols = payload_symbols
        self.set_frame(gpumimo.frame_info(self.preset, 2, self.modulation, self.payload_symbols))

    def get_modulation(self):
        return self.modulation

    def set_modulation(self, modulation):
        self.modulation = modulation
        self.set_frame(gpumimo.frame_info(self.preset, 2, self.modulation, self.payload_symbols))

    def get_frame(self):
        return self.frame

    def set_frame(self, frame):
        self.frame = frame
        self.head.set_length((self.frames * self.frame['payload_bits']))



def argument_parser():
    description = 'No hardware: the MIMO-OFDM frame source (2 streams, 16-QAM, small numerology) through the channel simulator (4 antennas, 3-tap delay line, carrier and timing offsets, AWGN) into the receiver chain (sync, OFDM FFT, channel estimation, detection) and the LLR sink, which counts bit and frame errors against the PRBS payload.'
    parser = ArgumentParser(description=description)
    parser.add_argument(
        "--frames", dest="frames", type=intx, default=200,
        help="Set Frames [default=%(default)r]")
    parser.add_argument(
        "--snr-db", dest="snr_db", type=eng_float, default=eng_notation.num_to_str(float(30)),
        help="Set SNR (dB) [default=%(default)r]")
    parser.add_argument(
        "--algorithm", dest="algorithm", type=str, default='mmse',
        help="Set Detector [default=%(default)r]")
    parser.add_argument(
        "--seed", dest="seed", type=intx, default=1,
        help="Set Seed [default=%(default)r]")
    return parser


def main(top_block_cls=sim_loopback, options=None):
    if options is None:
        options = argument_parser().parse_args()
    tb = top_block_cls(frames=options.frames, snr_db=options.snr_db, algorithm=options.algorithm, seed=options.seed)

    def sig_handler(sig=None, frame=None):
        tb.stop()
        tb.wait()

        sys.exit(0)

    signal.signal(signal.SIGINT, sig_handler)
    signal.signal(signal.SIGTERM, sig_handler)

    tb.start()

    tb.wait()


if __name__ == '__main__':
    main()
