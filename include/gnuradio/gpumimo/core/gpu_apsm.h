/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_GPU_APSM_H
#define INCLUDED_GPUMIMO_CORE_GPU_APSM_H

#include <gnuradio/gpumimo/core/apsm.h>

#include <complex>
#include <memory>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief APSM detection of several users at once on a CUDA device.
 *
 * Users trained on the same training vectors share one dictionary (the training
 * vectors) and differ only in coefficients, so one pass over the dictionary serves
 * them all: each real received vector's distance to an entry and its Gaussian kernel
 * value are computed once and weighted by every user's coefficient (the paper's
 * "several vectors per block, dictionary slices in shared memory"). Same result as
 * apsm_detect per user, in float32.
 *
 * The filters must agree in antennas (at most 16), input scale, kernel variance,
 * weights and dictionary (as apsm_train makes them from one training set); at most 8
 * users. Device buffers for up to max_symbols vectors are made by the constructor;
 * detect() allocates nothing. CUDA failures throw std::runtime_error naming the call;
 * a build without CUDA throws at construction.
 */
class gpu_apsm_detector
{
public:
    gpu_apsm_detector(const std::vector<apsm_filter>& users,
                      std::size_t max_symbols,
                      int device = 0);
    ~gpu_apsm_detector();
    gpu_apsm_detector(const gpu_apsm_detector&) = delete;
    gpu_apsm_detector& operator=(const gpu_apsm_detector&) = delete;

    int users() const;
    /*! rx: n vectors (symbol x antenna, row-major); soft: users x n, user-major.
     *  n <= max_symbols. Non-finite input gives NaN soft symbols for that vector. */
    void detect(const std::complex<float>* rx, std::size_t n, std::complex<float>* soft);
    /*! The kernel time of the last detect(), CUDA events, in milliseconds. */
    float last_kernel_ms() const;

private:
    struct impl;
    std::unique_ptr<impl> d_impl;
};

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
