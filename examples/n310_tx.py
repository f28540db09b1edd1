#!/usr/bin/env python3
# -*- coding: utf-8 -*-

#
# SPDX-License-Identifier: GPL-3.0
#
# GNU Radio Python Flow Graph
# Title: MIMO-OFDM transmitter on one N310 (4 streams)
# Author: gr-gpumimo authors
# Copyright: 2026
# Description: The MIMO-OFDM frame (4 streams, 16-QAM, LTE-like 20 MHz numerology, 9 payload symbols: 1 ms frames, PRBS payload) from the four transmit ports of one N310, external 10 MHz and PPS, the time set at the next PPS and a timed start; the samples scaled by Amplitude to keep the peaks inside the DAC's range. The receivers of n310_rx_16ch count errors against its PRBS.
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
from gnuradio import uhd
import time




class n310_tx(gr.top_block):

    def __init__(self, addresses='addr=192.168.10.2', center_freq=3.5e9, gain=30, start_time=2.0, amplitude=0.25, prbs_seed=1):
        gr.top_block.__init__(self, "MIMO-OFDM transmitter on one N310 (4 streams)", catch_exceptions=True)

        ##################################################
        # Parameters
        ##################################################
        self.addresses = addresses
        self.center_freq = center_freq
        self.gain = gain
        self.start_time = start_time
        self.amplitude = amplitude
        self.prbs_seed = prbs_seed

        ##################################################
        # Variables
        ##################################################
        self.samp_rate = samp_rate = 30.72e6

        ##################################################
        # Blocks
        ##################################################

        self.usrp = uhd.usrp_sink(
            ",".join((addresses, '', "master_clock_rate=122.88e6")),
            uhd.stream_args(
                cpu_format="fc32",
                otw_format="sc16",
                args='',
                channels=list(range(0,4)),
            ),
            '',
        )
        self.usrp.set_clock_source('external', 0)
        self.usrp.set_time_source('external', 0)
        self.usrp.set_samp_rate(samp_rate)
        self.usrp.set_time_unknown_pps(uhd.time_spec(0))

        self.usrp.set_center_freq(center_freq, 0)
        self.usrp.set_antenna('TX/RX', 0)
        self.usrp.set_gain(gain, 0)

        self.usrp.set_center_freq(center_freq, 1)
        self.usrp.set_antenna('TX/RX', 1)
        self.usrp.set_gain(gain, 1)

        self.usrp.set_center_freq(center_freq, 2)
        self.usrp.set_antenna('TX/RX', 2)
        self.usrp.set_gain(gain, 2)

        self.usrp.set_center_freq(center_freq, 3)
        self.usrp.set_antenna('TX/RX', 3)
        self.usrp.set_gain(gain, 3)

        self.usrp.set_start_time(uhd.time_spec(start_time))
        self.tx = gpumimo.mimo_ofdm_tx('lte20', 4, '16qam', 9, seed=prbs_seed, gap=0, payload='prbs')
        self.scale_3 = blocks.multiply_const_cc(amplitude)
        self.scale_2 = blocks.multiply_const_cc(amplitude)
        self.scale_1 = blocks.multiply_const_cc(amplitude)
        self.scale_0 = blocks.multiply_const_cc(amplitude)


        ##################################################
        # Connections
        ##################################################
        self.connect((self.scale_0, 0), (self.usrp, 0))
        self.connect((self.scale_1, 0), (self.usrp, 1))
        self.connect((self.scale_2, 0), (self.usrp, 2))
        self.connect((self.scale_3, 0), (self.usrp, 3))
        self.connect((self.tx, 0), (self.scale_0, 0))
        self.connect((self.tx, 1), (self.scale_1, 0))
        self.connect((self.tx, 2), (self.scale_2, 0))
        self.connect((self.tx, 3), (self.scale_3, 0))


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

    def get_gain(self):
        return self.gain

    def set_gain(self, gain):
        self.gain = gain
        self.usrp.set_gain(self.gain, 0)
        self.usrp.set_gain(self.gain, 1)
        self.usrp.set_gain(self.gain, 2)
        self.usrp.set_gain(self.gain, 3)

    def get_start_time(self):
        return self.start_time

    def set_start_time(self, start_time):
        self.start_time = start_time

    def get_amplitude(self):
        return self.amplitude

    def set_amplitude(self, amplitude):
        self.amplitude = amplitude
        self.scale_0.set_k(self.amplitude)
        self.scale_1.set_k(self.amplitude)
        self.scale_2.set_k(self.amplitude)
        self.scale_3.set_k(self.amplitude)

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
    description = "The MIMO-OFDM frame (4 streams, 16-QAM, LTE-like 20 MHz numerology, 9 payload symbols: 1 ms frames, PRBS payload) from the four transmit ports of one N310, external 10 MHz and PPS, the time set at the next PPS and a timed start; the samples scaled by Amplitude to keep the peaks inside the DAC's range. The receivers of n310_rx_16ch count errors against its PRBS."
    parser = ArgumentParser(description=description)
    parser.add_argument(
        "--addresses", dest="addresses", type=str, default='addr=192.168.10.2',
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
        "--amplitude", dest="amplitude", type=eng_float, default=eng_notation.num_to_str(float(0.25)),
        help="Set Amplitude [default=%(default)r]")
    parser.add_argument(
        "--prbs-seed", dest="prbs_seed", type=intx, default=1,
        help="Set PRBS Seed [default=%(default)r]")
    return parser


def main(top_block_cls=n310_tx, options=None):
    if options is None:
        options = argument_parser().parse_args()
    tb = top_block_cls(addresses=options.addresses, center_freq=options.center_freq, gain=options.gain, start_time=options.start_time, amplitude=options.amplitude, prbs_seed=options.prbs_seed)

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
