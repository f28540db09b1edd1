/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_DETECTOR_H
#define INCLUDED_GPUMIMO_CORE_DETECTOR_H

#include <gnuradio/gpumimo/core/constellation.h>
#include <gnuradio/gpumimo/core/detect/detector_params.h>
#include <gnuradio/gpumimo/core/detect/registry.h>
#include <gnuradio/gpumimo/core/limits.h>

#include <atomic>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

using cf32 = std::complex<float>;


/*!
 * \brief A batch of MIMO detection problems y = H s + n, as views on the caller's memory.
 *
 * - y: batch vectors of nr complex samples, vector b at y[b * nr].
 * - h: one nr x nt channel matrix (row-major: h[c*nr*nt + r*nt + t] is the gain from
 *   transmit stream t to receive antenna r) for every group of `group` consecutive
 *   vectors: vector b uses matrix b / group; num_channels() = ceil(batch / group).
 * - noise_var: N0 = E|n_r|^2 of each matrix (num_channels() values), or one value for
 *   all when scalar_noise is set.
 * With pi/2-BPSK, vector b holds symbol index b of every stream: odd vectors' symbols
 * are turned by j (constellation::rotation).
 */
struct mimo_batch {
    const cf32* y = nullptr;
    const cf32* h = nullptr;
    const float* noise_var = nullptr;
    std::size_t batch = 0;
    int nt = 0;
    int nr = 0;
    std::size_t group = 1;
    bool scalar_noise = true;

    std::size_t num_channels() const { return group ? (batch + group - 1) / group : 0; }
    double noise_of_channel(std::size_t c) const
    {
        return scalar_noise ? noise_var[0] : noise_var[c];
    }
};

/*! The psd level set that detector_params with empty psd_lvl/psd_exp stands for. */
void psd_default_levels(int nt,
                        modulation mod,
                        std::vector<int>& lvl,
                        std::vector<int>& exp);

/*!
 * \brief The CPU reference detector: readable code, double precision inside; the
 * algorithm's reference comes from its registry entry (core/detect/registry.h).
 *
 * LLRs are max-log: LLR_k = (min_{s: b_k=0} ||y-Hs||^2 - min_{s: b_k=1} ||y-Hs||^2)/N0,
 * i.e. ln P(b_k=1)/P(b_k=0); positive means 1. Vector b's LLRs are written to
 * llr[b * nt * m ...]: stream 0's bits b_0..b_{m-1}, then stream 1's, and so on.
 *
 * The constructor checks the configuration, detect() the data; both throw
 * std::invalid_argument with the offending index before any output is written.
 */
class cpu_detector
{
public:
    cpu_detector(algorithm algo,
                 modulation mod,
                 int nt,
                 int nr,
                 const detector_params& params = detector_params());
    ~cpu_detector();
    cpu_detector(const cpu_detector&) = delete;
    cpu_detector& operator=(const cpu_detector&) = delete;

    algorithm algo() const { return d_algo; }
    const constellation& constel() const { return d_const; }
    int nt() const { return d_nt; }
    int nr() const { return d_nr; }
    int bits_per_vector() const { return d_nt * d_const.bits_per_symbol(); }
    const detector_params& params() const { return d_params; }

    /*! Detects batch.batch vectors into llr (batch * bits_per_vector() floats). Uses
     *  up to `threads` threads (0: all cores). */
    void detect(const mimo_batch& batch, float* llr, unsigned threads = 0) const;

    /*! Vectors whose search ran out of its budget (psd's max_nodes: the best leaf found
     *  so far stood in for the ML decision), over every detect() so far. */
    std::uint64_t search_budget_hits() const { return d_budget_hits.load(); }

private:
    algorithm d_algo;
    constellation d_const;
    int d_nt, d_nr;
    detector_params d_params;
    mutable std::atomic<std::uint64_t> d_budget_hits{ 0 };
};

/*!
 * \brief Checks a batch: dimensions against nt/nr, y and H usable samples (is_usable),
 * N0 finite and > 0, every H of full column rank (smallest |R_ii| of its QR above 1e-6
 * times its Frobenius norm), and every y within its model's range:
 * ||y||^2 <= max_vector_power_ratio (||H||_F^2 max_symbol_energy + nr N0)
 * (core/limits.h). \throws std::invalid_argument naming the first offending element.
 */
void validate_batch(const mimo_batch& batch, int nt, int nr, double max_symbol_energy);

/*! The parts of validate_batch that read no sample: dimensions, group, null pointers
 *  (validate_layout), and N0 finite and > 0 (validate_noise, host memory). The GPU
 *  backend runs validate_layout on the host and checks samples, matrices and N0 in its
 *  kernels (a bad one's vectors get zero LLRs, and the first is named in the error). */
void validate_layout(const mimo_batch& batch, int nt, int nr);
void validate_noise(const mimo_batch& batch);

/*! Hard decisions from LLRs: bit = 1 where llr > 0. */
void hard_decisions(const float* llr, std::size_t n, std::uint8_t* bits);

/*! The int8 output mode: q = clamp(round(llr * scale), -127, 127), so llr ~ q / scale.
 *  The default scale 8 gives LLR steps of 1/8 up to +-15.875. */
constexpr float default_int8_scale = 8.0f;
void llr_to_int8(const float* llr, std::size_t n, float scale, std::int8_t* out);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
