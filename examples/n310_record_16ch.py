#!/usr/bin/env python3
# -*- coding: utf-8 -*-

#
# SPDX-License-Identifier: GPL-3.0
#
# GNU Radio Python Flow Graph
# Title: Record 16 channels from four N310s to SigMF
# Author: gr-gpumimo authors
# Copyright: 2026
# Description: Four N310s as one multi_usrp (addr0..addr3), 10 MHz and PPS from one OctoClock on every radio (external clock and time sources), the time set to 0 at the next PPS on all radios together, and a timed start at Start Time so that all 16 channels begin on the same sample (master clock 122.88 MHz, 30.72 Msample/s). Records Seconds of all 16 channels as one SigMF collection (one ci16_le recording per channel, as the radios deliver them, capture start time from the radios' rx_time) for gpumimo_replay, replay_sigmf or the SigMF source.
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




class n310_record_16ch(gr.top_block):

    def __init__(self, addresses='addr0=192.168.10.2,addr1=192.168.11.2,addr2=192.168.12.2,addr3=192.168.13.2', center_freq=3.5e9, gain=30, start_time=2.0, prefix='n310_16ch', seconds=1.0):
        gr.top_block.__init__(self, "Record 16 channels from four N310s to SigMF", catch_exceptions=True)

        ##################################################
        # Parameters
        ##################################################
        self.addresses = addresses
        self.center_freq = center_freq
        self.gain = gain
        self.start_time = start_time
        self.prefix = prefix
        self.seconds = seconds

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
        self.sink = gpumimo.sigmf_sink(prefix, 16, samp_rate, center_freq, 'ci16_le', 1.0, 'four N310s, 16 channels, external 10 MHz and PPS')
        self.head_9 = blocks.head(gr.sizeof_gr_complex*1, (int(seconds * samp_rate)))
        self.head_8 = blocks.head(gr.sizeof_gr_complex*1, (int(seconds * samp_rate)))
        self.head_7 = blocks.head(gr.sizeof_gr_complex*1, (int(seconds * samp_rate)))
        self.head_6 = blocks.head(gr.sizeof_gr_complex*1, (int(seconds * samp_rate)))
        self.head_5 = blocks.head(gr.sizeof_gr_complex*1, (int(seconds * samp_rate)))
        self.head_4 = blocks.head(gr.sizeof_gr_complex*1, (int(seconds * samp_rate)))
        self.head_3 = blocks.head(gr.sizeof_gr_complex*1, (int(seconds * samp_rate)))
        self.head_2 = blocks.head(gr.sizeof_gr_complex*1, (int(seconds * samp_rate)))
        self.head_15 = blocks.head(gr.sizeof_gr_complex*1, (int(seconds * samp_rate)))
        self.head_14 = blocks.head(gr.sizeof_gr_complex*1, (int(seconds * samp_rate)))
        self.head_13 = blocks.head(gr.sizeof_gr_complex*1, (int(seconds * samp_rate)))
        self.head_12 = blocks.head(gr.sizeof_gr_complex*1, (int(seconds * samp_rate)))
        self.head_11 = blocks.head(gr.sizeof_gr_complex*1, (int(seconds * samp_rate)))
        self.head_10 = blocks.head(gr.sizeof_gr_complex*1, (int(seconds * samp_rate)))
        self.head_1 = blocks.head(gr.sizeof_gr_complex*1, (int(seconds * samp_rate)))
        self.head_0 = blocks.head(gr.sizeof_gr_complex*1, (int(seconds * samp_rate)))


        ##################################################
        # Connections
        ##################################################
        self.connect((self.head_0, 0), (self.sink, 0))
        self.connect((self.head_1, 0), (self.sink, 1))
        self.connect((self.head_10, 0), (self.sink, 10))
        self.connect((self.head_11, 0), (self.sink, 11))
        self.connect((self.head_12, 0), (self.sink, 12))
        self.connect((self.head_13, 0), (self.sink, 13))
        self.connect((self.head_14, 0), (self.sink, 14))
        self.connect((self.head_15, 0), (self.sink, 15))
        self.connect((self.head_2, 0), (self.sink, 2))
        self.connect((self.head_3, 0), (self.sink, 3))
        self.connect((self.head_4, 0), (self.sink, 4))
        self.connect((self.head_5, 0), (self.sink, 5))
        self.connect((self.head_6, 0), (self.sink, 6))
        self.connect((self.head_7, 0), (self.sink, 7))
        self.connect((self.head_8, 0), (self.sink, 8))
        self.connect((self.head_9, 0), (self.sink, 9))
        self.connect((self.usrp, 0), (self.head_0, 0))
        self.connect((self.usrp, 1), (self.head_1, 0))
        self.connect((self.usrp, 10), (self.head_10, 0))
        self.connect((self.usrp, 11), (self.head_11, 0))
        self.connect((self.usrp, 12), (self.head_12, 0))
        self.connect((self.usrp, 13), (self.head_13, 0))
        self.connect((self.usrp, 14), (self.head_14, 0))
        self.connect((self.usrp, 15), (self.head_15, 0))
        self.connect((self.usrp, 2), (self.head_2, 0))
        self.connect((self.usrp, 3), (self.head_3, 0))
        self.connect((self.usrp, 4), (self.head_4, 0))
        self.connect((self.usrp, 5), (self.head_5, 0))
        self.connect((self.usrp, 6), (self.head_6, 0))
        self.connect((self.usrp, 7), (self.head_7, 0))
        self.connect((self.usrp, 8), (self.head_8, 0))
        self.connect((self.usrp, 9), (self.head_9, 0))


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

    def get_prefix(self):
        return self.prefix

    def set_prefix(self, prefix):
        self.prefix = prefix

    def get_seconds(self):
        return self.seconds

    def set_seconds(self, seconds):
        self.seconds = seconds
        self.head_0.set_length((int(self.seconds * self.samp_rate)))
        self.head_1.set_length((int(self.seconds * self.samp_rate)))
        self.head_2.set_length((int(self.seconds * self.samp_rate)))
        self.head_3.set_length((int(self.seconds * self.samp_rate)))
        self.head_4.set_length((int(self.seconds * self.samp_rate)))
        self.head_5.set_length((int(self.seconds * self.samp_rate)))
        self.head_6.set_length((int(self.seconds * self.samp_rate)))
        self.head_7.set_length((int(self.seconds * self.samp_rate)))
        self.head_8.set_length((int(self.seconds * self.samp_rate)))
        self.head_9.set_length((int(self.seconds * self.samp_rate)))
        self.head_10.set_length((int(self.seconds * self.samp_rate)))
        self.head_11.set_length((int(self.seconds * self.samp_rate)))
        self.head_12.set_length((int(self.seconds * self.samp_rate)))
        self.head_13.set_length((int(self.seconds * self.samp_rate)))
        self.head_14.set_length((int(self.seconds * self.samp_rate)))
        self.head_15.set_length((int(self.seconds * self.samp_rate)))

    def get_samp_rate(self):
        return self.samp_rate

    def set_samp_rate(self, samp_rate):
        self.samp_rate = samp_rate
        self.usrp.set_samp_rate(self.samp_rate)
        self.head_0.set_length((int(self.seconds * self.samp_rate)))
        self.head_1.set_length((int(self.seconds * self.samp_rate)))
        self.head_2.set_length((int(self.seconds * self.samp_rate)))
        self.head_3.set_length((int(self.seconds * self.samp_rate)))
        self.head_4.set_length((int(self.seconds * self.samp_rate)))
        self.head_5.set_length((int(self.seconds * self.samp_rate)))
        self.head_6.set_length((int(self.seconds * self.samp_rate)))
        self.head_7.set_length((int(self.seconds * self.samp_rate)))
        self.head_8.set_length((int(self.seconds * self.samp_rate)))
        self.head_9.set_length((int(self.seconds * self.samp_rate)))
        self.head_10.set_length((int(self.seconds * self.samp_rate)))
        self.head_11.set_length((int(self.seconds * self.samp_rate)))
        self.head_12.set_length((int(self.seconds * self.samp_rate)))
        self.head_13.set_length((int(self.seconds * self.samp_rate)))
        self.head_14.set_length((int(self.seconds * self.samp_rate)))
        self.head_15.set_length((int(self.seconds * self.samp_rate)))



def argument_parser():
    description = "Four N310s as one multi_usrp (addr0..addr3), 10 MHz and PPS from one OctoClock on every radio (external clock and time sources), the time set to 0 at the next PPS on all radios together, and a timed start at Start Time so that all 16 channels begin on the same sample (master clock 122.88 MHz, 30.72 Msample/s). Records Seconds of all 16 channels as one SigMF collection (one ci16_le recording per channel, as the radios deliver them, capture start time from the radios' rx_time) for gpumimo_replay, replay_sigmf or the SigMF source."
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
        "--prefix", dest="prefix", type=str, default='n310_16ch',
        help="Set Recording Prefix [default=%(default)r]")
    parser.add_argument(
        "--seconds", dest="seconds", type=eng_float, default=eng_notation.num_to_str(float(1.0)),
        help="Set Seconds [default=%(default)r]")
    return parser


def main(top_block_cls=n310_record_16ch, options=None):
    if options is None:
        options = argument_parser().parse_args()
    tb = top_block_cls(addresses=options.addresses, center_freq=options.center_freq, gain=options.gain, start_time=options.start_time, prefix=options.prefix, seconds=options.seconds)

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
