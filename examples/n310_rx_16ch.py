#!/usr/bin/env python3
# -*- coding: utf-8 -*-

#
# SPDX-License-Identifier: GPL-3.0
#
# GNU Radio Python Flow Graph
# Title: MIMO-OFDM receiver, four N310s (16 channels)
# Author: gr-gpumimo authors
# Copyright: 2026
# Description: Four N310s as one multi_usrp (addr0..addr3), 10 MHz and PPS from one OctoClock on every radio (external clock and time sources), the time set to 0 at the next PPS on all radios together, and a timed start at Start Time so that all 16 channels begin on the same sample (master clock 122.88 MHz, 30.72 Msample/s). Each radio's 4 ports receive one 4x4 16-QAM link (LTE-like 20 MHz numerology, 9 payload symbols: 1 ms frames) through its own receiver (frame sync, then the fused GPU receiver: samples in, LLRs out) into an LLR sink counting errors against the PRBS payload of n310_tx.
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
from gnuradio import uhd
import time




class n310_rx_16ch(gr.top_block):

    def __init__(self, addresses='addr0=192.168.10.2,addr1=192.168.11.2,addr2=192.168.12.2,addr3=192.168.13.2', center_freq=3.5e9, gain=30, start_time=2.0, algorithm='mmse', prbs_seed=1):
        gr.top_block.__init__(self, "MIMO-OFDM receiver, four N310s (16 channels)", catch_exceptions=True)

        ##################################################
        # Parameters
        ##################################################
        self.addresses = addresses
        self.center_freq = center_freq
        self.gain = gain
        self.start_time = start_time
        self.algorithm = algorithm
        self.prbs_seed = prbs_seed

        ##################################################
        # Variables
        ##################################################
        self.samp_rate = samp_rate = 30.72e6

        ##################################################
        # Blocks
        ##################################################

        self.usrp = uhd.usrp_source(
            ",".join((addresses, '', "master_clock_rate=122.88e6")),
            uhd.stream_args(
                cpu_format="fc32",
                otw_format="sc16",
                args='',
                channels=list(range(0,16)),
            ),
        )
        self.usrp.set_clock_source('external', 0)
        self.usrp.set_time_source('external', 0)
        self.usrp.set_clock_source('external', 1)
        self.usrp.set_time_source('external', 1)
        self.usrp.set_clock_source('external', 2)
        self.usrp.set_time_source('external', 2)
        self.usrp.set_clock_source('external', 3)
        self.usrp.set_time_source('external', 3)
        self.usrp.set_samp_rate(samp_rate)
        self.usrp.set_time_unknown_pps(uhd.time_spec(0))

        self.usrp.set_center_freq(center_freq, 0)
        self.usrp.set_antenna('RX2', 0)
        self.usrp.set_gain(gain, 0)

        self.usrp.set_center_freq(center_freq, 1)
        self.usrp.set_antenna('RX2', 1)
        self.usrp.set_gain(gain, 1)

        self.usrp.set_center_freq(center_freq, 2)
        self.usrp.set_antenna('RX2', 2)
        self.usrp.set_gain(gain, 2)

        self.usrp.set_center_freq(center_freq, 3)
        self.usrp.set_antenna('RX2', 3)
        self.usrp.set_gain(gain, 3)

        self.usrp.set_center_freq(center_freq, 4)
        self.usrp.set_antenna('RX2', 4)
        self.usrp.set_gain(gain, 4)

        self.usrp.set_center_freq(center_freq, 5)
        self.usrp.set_antenna('RX2', 5)
        self.usrp.set_gain(gain, 5)

        self.usrp.set_center_freq(center_freq, 6)
        self.usrp.set_antenna('RX2', 6)
        self.usrp.set_gain(gain, 6)

        self.usrp.set_center_freq(center_freq, 7)
        self.usrp.set_antenna('RX2', 7)
        self.usrp.set_gain(gain, 7)

        self.usrp.set_center_freq(center_freq, 8)
        self.usrp.set_antenna('RX2', 8)
        self.usrp.set_gain(gain, 8)

        self.usrp.set_center_freq(center_freq, 9)
        self.usrp.set_antenna('RX2', 9)
        self.usrp.set_gain(gain, 9)

        self.usrp.set_center_freq(center_freq, 10)
        self.usrp.set_antenna('RX2', 10)
        self.usrp.set_gain(gain, 10)

        self.usrp.set_center_freq(center_freq, 11)
        self.usrp.set_antenna('RX2', 11)
        self.usrp.set_gain(gain, 11)

        self.usrp.set_center_freq(center_freq, 12)
        self.usrp.set_antenna('RX2', 12)
        self.usrp.set_gain(gain, 12)

        self.usrp.set_center_freq(center_freq, 13)
        self.usrp.set_antenna('RX2', 13)
        self.usrp.set_gain(gain, 13)

        self.usrp.set_center_freq(center_freq, 14)
        self.usrp.set_antenna('RX2', 14)
        self.usrp.set_gain(gain, 14)

        self.usrp.set_center_freq(center_freq, 15)
        self.usrp.set_antenna('RX2', 15)
        self.usrp.set_gain(gain, 15)

        self.usrp.set_start_time(uhd.time_spec(start_time))
        self.sink_3 = gpumimo.llr_sink('lte20', 4, '16qam', 9, False, 8.0, '', prbs_seed, 1000, '')
        self.sink_2 = gpumimo.llr_sink('lte20', 4, '16qam', 9, False, 8.0, '', prbs_seed, 1000, '')
        self.sink_1 = gpumimo.llr_sink('lte20', 4, '16qam', 9, False, 8.0, '', prbs_seed, 1000, '')
        self.sink_0 = gpumimo.llr_sink('lte20', 4, '16qam', 9, False, 8.0, '', prbs_seed, 1000, '')
        self.rx_3 = gpumimo.mimo_ofdm_rx('lte20', 4, '16qam', 9, 4, algorithm, backend='auto', fft_backend='auto', int8_output=False, threshold=0.7, kbest_k=16, nway_passes=0, device=0, fused=True)
        self.rx_2 = gpumimo.mimo_ofdm_rx('lte20', 4, '16qam', 9, 4, algorithm, backend='auto', fft_backend='auto', int8_output=False, threshold=0.7, kbest_k=16, nway_passes=0, device=0, fused=True)
        self.rx_1 = gpumimo.mimo_ofdm_rx('lte20', 4, '16qam', 9, 4, algorithm, backend='auto', fft_backend='auto', int8_output=False, threshold=0.7, kbest_k=16, nway_passes=0, device=0, fused=True)
        self.rx_0 = gpumimo.mimo_ofdm_rx('lte20', 4, '16qam', 9, 4, algorithm, backend='auto', fft_backend='auto', int8_output=False, threshold=0.7, kbest_k=16, nway_passes=0, device=0, fused=True)


        ##################################################
        # Connections
        ##################################################
        self.connect((self.rx_0, 0), (self.sink_0, 0))
        self.connect((self.rx_1, 0), (self.sink_1, 0))
        self.connect((self.rx_2, 0), (self.sink_2, 0))
        self.connect((self.rx_3, 0), (self.sink_3, 0))
        self.connect((self.usrp, 0), (self.rx_0, 0))
        self.connect((self.usrp, 3), (self.rx_0, 3))
        self.connect((self.usrp, 1), (self.rx_0, 1))
        self.connect((self.usrp, 2), (self.rx_0, 2))
        self.connect((self.usrp, 4), (self.rx_1, 0))
        self.connect((self.usrp, 7), (self.rx_1, 3))
        self.connect((self.usrp, 5), (self.rx_1, 1))
        self.connect((self.usrp, 6), (self.rx_1, 2))
        self.connect((self.usrp, 10), (self.rx_2, 2))
        self.connect((self.usrp, 8), (self.rx_2, 0))
        self.connect((self.usrp, 11), (self.rx_2, 3))
        self.connect((self.usrp, 9), (self.rx_2, 1))
        self.connect((self.usrp, 12), (self.rx_3, 0))
        self.connect((self.usrp, 14), (self.rx_3, 2))
        self.connect((self.usrp, 13), (self.rx_3, 1))
        self.connect((self.usrp, 15), (self.rx_3, 3))


    def get_addresses(self):
        return self.addresses

    def set_addresses(self, addresses):
        self.addresses = addresses

    def get_center_freq(self):
        return self.center_freq

    def set_center_freq(self, center_freq):
        self.center_freq = center_freq
        self.usrp.set_center_freq(self.center_freq, 0)
        self.usrp.set_center_freq(self.center_freq, 1)
        self.usrp.set_center_freq(self.center_freq, 2)
        self.usrp.set_center_freq(self.center_freq, 3)
        self.usrp.set_center_freq(self.center_freq, 4)
        self.usrp.set_center_freq(self.center_freq, 5)
        self.usrp.set_center_freq(self.center_freq, 6)
        self.usrp.set_center_freq(self.center_freq, 7)
        self.usrp.set_center_freq(self.center_freq, 8)
        self.usrp.set_center_freq(self.center_freq, 9)
        self.usrp.set_center_freq(self.center_freq, 10)
        self.usrp.set_center_freq(self.center_freq, 11)
        self.usrp.set_center_freq(self.center_freq, 12)
        self.usrp.set_center_freq(self.center_freq, 13)
        self.usrp.set_center_freq(self.center_freq, 14)
        self.usrp.set_center_freq(self.center_freq, 15)

    def get_gain(self):
        return self.gain

    def set_gain(self, gain):
        self.gain = gain
        self.usrp.set_gain(self.gain, 0)
        self.usrp.set_gain(self.gain, 1)
        self.usrp.set_gain(self.gain, 2)
        self.usrp.set_gain(self.gain, 3)
        self.usrp.set_gain(self.gain, 4)
        self.usrp.set_gain(self.gain, 5)
        self.usrp.set_gain(self.gain, 6)
        self.usrp.set_gain(self.gain, 7)
        self.usrp.set_gain(self.gain, 8)
        self.usrp.set_gain(self.gain, 9)
        self.usrp.set_gain(self.gain, 10)
        self.usrp.set_gain(self.gain, 11)
        self.usrp.set_gain(self.gain, 12)
        self.usrp.set_gain(self.gain, 13)
        self.usrp.set_gain(self.gain, 14)
        self.usrp.set_gain(self.gain, 15)

    def get_start_time(self):
        return self.start_time

    def set_start_time(self, start_time):
        self.start_time = start_time

    def get_algorithm(self):
        return self.algorithm

    def set_algorithm(self, algorithm):
        self.algorithm = algorithm

    def get_prbs_seed(self):
        return self.prbs_seed

    def set_prbs_seed(self, prbs_seed):
        self.prbs_seed = prbs_seed

    def get_samp_rate(self):
        return self.samp_rate

    def set_samp_rate(self, samp_rate):
        self.samp_rate = samp_rate
        self.usrp.set_samp_rate(self.samp_rate)



def argument_parser():
    description = "Four N310s as one multi_usrp (addr0..addr3), 10 MHz and PPS from one OctoClock on every radio (external clock and time sources), the time set to 0 at the next PPS on all radios together, and a timed start at Start Time so that all 16 channels begin on the same sample (master clock 122.88 MHz, 30.72 Msample/s). Each radio's 4 ports receive one 4x4 16-QAM link (LTE-like 20 MHz numerology, 9 payload symbols: 1 ms frames) through its own receiver (frame sync, then the fused GPU receiver: samples in, LLRs out) into an LLR sink counting errors against the PRBS payload of n310_tx."
    parser = ArgumentParser(description=description)
    parser.add_argument(
        "--addresses", dest="addresses", type=str, default='addr0=192.168.10.2,addr1=192.168.11.2,addr2=192.168.12.2,addr3=192.168.13.2',
        help="Set Device Addresses [default=%(default)r]")
    parser.add_argument(
        "--center-freq", dest="center_freq", type=eng_float, default=eng_notation.num_to_str(float(3.5e9)),
        help="Set Centre Frequency (Hz) [default=%(default)r]")
    parser.add_argument(
        "--gain", dest="gain", type=eng_float, default=eng_notation.num_to_str(float(30)),
        help="Set Gain (dB) [default=%(default)r]")
    parser.add_argument(
        "--start-time", dest="start_time", type=eng_float, default=eng_notation.num_to_str(float(2.0)),
        help="Set Start Time (s, device time) [default=%(default)r]")
    parser.add_argument(
        "--algorithm", dest="algorithm", type=str, default='mmse',
        help="Set Detector [default=%(default)r]")
    parser.add_argument(
        "--prbs-seed", dest="prbs_seed", type=intx, default=1,
        help="Set PRBS Seed [default=%(default)r]")
    return parser


def main(top_block_cls=n310_rx_16ch, options=None):
    if options is None:
        options = argument_parser().parse_args()
    tb = top_block_cls(addresses=options.addresses, center_freq=options.center_freq, gain=options.gain, start_time=options.start_time, algorithm=options.algorithm, prbs_seed=options.prbs_seed)

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
