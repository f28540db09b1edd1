/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Shared by the channel tests: a block of input streams through a fresh channel as a
 * stream cut at random points, for comparing with the channel's apply() on the block.
 */
#ifndef INCLUDED_GPUMIMO_TEST_STREAMED_CHANNEL_H
#define INCLUDED_GPUMIMO_TEST_STREAMED_CHANNEL_H

#include <gnuradio/gpumimo/core/link/mimo_channel.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <vector>

namespace gpumimo_test {

/*! x: p.tx streams of n samples (stream-major), then `delay` zeros each, as apply()
 *  takes the block; through a channel of p as one stream, cut into pieces of 0 to
 *  max_piece samples (0: one piece), with noise of variance noise_var (0: none).
 *  Returns p.rx streams of n + delay samples (NaN where nothing was written). */
inline std::vector<std::complex<float>>
streamed_in_pieces(const gr::gpumimo::core::channel_params& p,
                   const std::vector<std::complex<float>>& x,
                   std::size_t n,
                   std::size_t max_piece,
                   std::mt19937_64& rng,
                   double noise_var = 0.0)
{
    using cf = std::complex<float>;
    const std::size_t len = n + std::size_t(p.delay);
    std::vector<cf> padded(std::size_t(p.tx) * len, cf(0, 0));
    for (int k = 0; k < p.tx; k++)
        std::copy(x.begin() + std::ptrdiff_t(std::size_t(k) * n),
                  x.begin() + std::ptrdiff_t(std::size_t(k + 1) * n),
                  padded.begin() + std::ptrdiff_t(std::size_t(k) * len));
    gr::gpumimo::core::mimo_channel ch(p);
    std::vector<cf> streamed(std::size_t(p.rx) * len, cf(NAN, NAN));
    std::uniform_int_distribution<std::size_t> cut(0, max_piece);
    for (std::size_t at = 0; at < len;) {
        const std::size_t take = max_piece == 0 ? len : std::min(len - at, cut(rng));
        std::vector<const cf*> in;
        std::vector<cf*> out;
        for (int k = 0; k < p.tx; k++)
            in.push_back(padded.data() + std::size_t(k) * len + at);
        for (int r = 0; r < p.rx; r++)
            out.push_back(streamed.data() + std::size_t(r) * len + at);
        ch.process(in.data(), out.data(), take, noise_var);
        at += take;
    }
    return streamed;
}

} // namespace gpumimo_test

#endif
