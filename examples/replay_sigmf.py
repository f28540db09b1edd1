#!/usr/bin/env python3
# -*- coding: utf-8 -*-

#
# SPDX-License-Identifier: GPL-3.0
#
# GNU Radio Python Flow Graph
# Title: MIMO-OFDM replay of a multi-channel SigMF recording
# Author: gr-gpumimo authors
# Copyright: 2026
# Description: A multi-channel SigMF recording (by default the 4-channel one shipped in examples/recordings: 4x4 16-QAM, small numerology, PRBS seed 2026) through the receiver chain block by block (frame sync, OFDM FFT, channel estimation, detection) into the LLR sink, which counts bit and frame errors against the PRBS payload. Run from the repository root, or give the collection's path.
# GNU Radio version: 3.10.5.1

from gnuradio import gpumimo
from gnuradio import gr
from gnuradio.filter import firdes
from gnuradio.fft import window
import sys
import signal
from argparse import ArgumentParser
from gnuradio.eng_arg import eng_float, intx
from gnuradio import eng_notation




class replay_sigmf(gr.top_block):

    def __init__(self, collection='examples/recordings/sim_4x4_16qam.sigmf-collection', algorithm='mmse', prbs_seed=2026):
        gr.top_block.__init__(self, "MIMO-OFDM replay of a multi-channel SigMF recording", catch_exceptions=True)

        ##################################################
        # Parameters
        ##################################################
        self.collection = collection
        self.algorithm = algorithm
        self.prbs_seed = prbs_seed

        ##################################################
        # Variables
        ##################################################
        self.num = num = gpumimo.numerology('small')

        ##################################################
        # Blocks
        ##################################################

        self.sync = gpumimo.mimo_ofdm_sync('small', 4, '16qam', 10, 4, 0.7)
        self.source = gpumimo.sigmf_source(collection, False, True)
        self.sink = gpumimo.llr_sink('small', 4, '16qam', 10, False, 8.0, '', prbs_seed, 0, '')
        self.fft = gpumimo.ofdm_fft(
            num['fft_len'], num['cp_lengths'], num['carriers'], True,
            'fc32', 'fc32', True, num['scale'], [],
            channels=4, backend='auto', devices=[0],
            batch=0, sync_tag='frame_start')
        self.detector = gpumimo.mimo_detector('small', 4, '16qam', 4, algorithm, 'auto', False, 8.0, 16, 0, 8.0, 0, 0)
        self.chanest = gpumimo.mimo_chanest('small', 4, '16qam', 10, 4)


        ##################################################
        # Connections
        ##################################################
        self.connect((self.chanest, 2), (self.detector, 2))
        self.connect((self.chanest, 1), (self.detector, 1))
        self.connect((self.chanest, 0), (self.detector, 0))
        self.connect((self.chanest, 3), (self.detector, 3))
        self.connect((self.detector, 0), (self.sink, 0))
        self.connect((self.fft, 0), (self.chanest, 0))
        self.connect((self.fft, 1), (self.chanest, 1))
        self.connect((self.fft, 2), (self.chanest, 2))
        self.connect((self.fft, 3), (self.chanest, 3))
        self.connect((self.source, 2), (self.sync, 2))
        self.connect((self.source, 3), (self.sync, 3))
        self.connect((self.source, 0), (self.sync, 0))
        self.connect((self.source, 1), (self.sync, 1))
        self.connect((self.sync, 0), (self.fft, 0))
        self.connect((self.sync, 3), (self.fft, 3))
        self.connect((self.sync, 2), (self.fft, 2))
        self.connect((self.sync, 1), (self.fft, 1))


    def get_collection(self):
        return self.collection

    def set_collection(self, collection):
        self.collection = collection

    def get_algorithm(self):
        return self.algorithm

    def set_algorithm(self, algorithm):
        self.algorithm = algorithm

    def get_prbs_seed(self):
        return self.prbs_seed

    def set_prbs_seed(self, prbs_seed):
        self.prbs_seed = prbs_seed

    def get_num(self):
        return self.num

    def set_num(self, num):
        self.num = num



def argument_parser():
    description = "A multi-channel SigMF recording (by default the 4-channel one shipped in examples/recordings: 4x4 16-QAM, small numerology, PRBS seed 2026) through the receiver chain block by block (frame sync, OFDM FFT, channel estimation, detection) into the LLR sink, which counts bit and frame errors against the PRBS payload. Run from the repository root, or give the collection's path."
    parser = ArgumentParser(description=description)
    parser.add_argument(
        "--collection", dest="collection", type=str, default='examples/recordings/sim_4x4_16qam.sigmf-collection',
        help="Set Collection [default=%(default)r]")
    parser.add_argument(
        "--algorithm", dest="algorithm", type=str, default='mmse',
        help="Set Detector [default=%(default)r]")
    parser.add_argument(
        "--prbs-seed", dest="prbs_seed", type=intx, default=2026,
        help="Set PRBS Seed [default=%(default)r]")
    return parser


def main(top_block_cls=replay_sigmf, options=None):
    if options is None:
        options = argument_parser().parse_args()
    tb = top_block_cls(collection=options.collection, algorithm=options.algorithm, prbs_seed=options.prbs_seed)

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
