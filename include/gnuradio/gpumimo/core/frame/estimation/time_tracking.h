/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_TIME_TRACKING_H
#define INCLUDED_GPUMIMO_CORE_TIME_TRACKING_H

#include <gnuradio/gpumimo/core/frame/estimation/channel_smoother.h>
#include <gnuradio/gpumimo/core/frame/frame.h>
#include <gnuradio/gpumimo/core/frame/frame_receiver.h>

#include <complex>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief Where a payload symbol's channel comes from in a frame with pilot blocks
 * (frame_format::pilot_interval, docs/frame.md "Tracking in time"): (1 - w) times block
 * `before`'s estimate plus w times block before + 1's.
 */
struct time_weight {
    int before = 0;
    float w = 0;
};

/*! Every payload symbol's weights, [payload_symbols]. Block b's estimate stands for the
 *  middle of its pilot symbols, t_b = pilot_block_start(b) + (Nt - 1) / 2; a payload
 *  symbol at OFDM symbol t between blocks b and b + 1 gets w = (t - t_b) / (t_{b+1} -
 *  t_b): linear interpolation in time, whose error for a channel fading at f_D over a
 *  block distance T is second order, about (2 pi f_D T)^2 / 8 of the channel at most
 *  mid-way. With one block every symbol gets block 0 and w = 0. */
std::vector<time_weight> time_weights(const frame_format& frame);

/*! (1 - w) a + w b into out (a and b of one frame's blocks, the same shape): H element
 *  by element; each carrier's error variance as that of independent estimates,
 *  (1 - w)^2 e_a + w^2 e_b; N0 the same mix as H; the detectors' effective noise from
 *  them. w = 0 copies a (whatever b holds). Allocates nothing once out has a's shape. */
void interpolate_estimate(const channel_estimate& a,
                          const channel_estimate& b,
                          float w,
                          channel_estimate& out);

/*! Every pilot block's estimate_channel() into blocks[0 .. pilot_blocks()) (grown, never
 *  shrunk): carriers_rx the whole frame after the forward FFT, [rx][symbol][used
 *  carrier], frame.symbols() symbols per antenna. */
void estimate_pilot_blocks(const frame_format& frame,
                           const std::complex<float>* carriers_rx,
                           int rx,
                           channel_smoother& smoother,
                           std::vector<channel_estimate>& blocks);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
