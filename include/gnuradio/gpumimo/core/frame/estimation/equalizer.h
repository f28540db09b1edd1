/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_EQUALIZER_H
#define INCLUDED_GPUMIMO_CORE_EQUALIZER_H

#include <complex>
#include <cstddef>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief Per-stream equalised symbols, for constellation displays: on every carrier c the
 * unbiased MMSE estimate of each stream, x_k = w_k^H y / (w_k^H h_k) with
 * W = (H^H H + N0 I)^-1 H^H (so that noise-free points land on the constellation).
 * set_channel() makes the filters of a frame's channel once (double precision); apply()
 * then equalises each of its OFDM symbols. A carrier whose H or N0 is not usable (not
 * finite, N0 not > 0) gives 0 on every stream (a rank-deficient H is answered: N0 > 0
 * regularises it).
 */
class mmse_equalizer
{
public:
    /*! h: [carrier][rx][tx] (core::mimo_batch's layout); noise: N0 per carrier
     *  (channel_estimate::noise_eff). Returns how many carriers are unusable. */
    std::size_t set_channel(const std::complex<float>* h,
                            const float* noise,
                            int rx,
                            int tx,
                            int carriers);
    /*! One OFDM symbol: y[r] antenna r's carriers, out[k] stream k's. */
    void apply(const std::complex<float>* const* y, std::complex<float>* const* out) const;

private:
    int d_rx = 0, d_tx = 0, d_carriers = 0;
    std::vector<std::complex<double>> d_filter; // [carrier][tx][rx]: w_k / (w_k^H h_k)
};

/*! One OFDM symbol with a channel of its own: mmse_equalizer's set_channel() then
 *  apply(); returns how many carriers were unusable. */
std::size_t mmse_equalize(const std::complex<float>* h,
                          const float* noise,
                          int rx,
                          int tx,
                          int carriers,
                          const std::complex<float>* const* y,
                          std::complex<float>* const* out);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
