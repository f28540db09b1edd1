/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_APSM_ENGINE_H
#define INCLUDED_GPUMIMO_CORE_APSM_ENGINE_H

#include <gnuradio/gpumimo/core/apsm/apsm.h>
#include <gnuradio/gpumimo/core/engine.h>

#include <complex>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*! What an APSM engine is made for. */
struct apsm_engine_config {
    apsm_params params;
    int antennas = 1;
    int users = 1;
    std::size_t max_training = 0; // pilots per training
    std::size_t max_symbols = 0;  // vectors per detect() call
    int device = 0;
};

/*!
 * \brief APSM multiuser detection (docs/apsm.md) on one backend: the CPU reference
 * (apsm_train, apsm_detect, user by user) or the GPU (gpu_apsm_trainer and
 * gpu_apsm_detector, all users at once; training on the CPU reference where the GPU
 * trainer does not take the parameters: norm_bound > 0).
 */
class apsm_engine
{
public:
    virtual ~apsm_engine() = default;
    /*! "cpu" or "cuda": where the next call runs. */
    virtual const char* backend() const = 0;
    /*! Every user's filter from n <= max_training pilot vectors: rx n x antennas, sent
     *  users x n. \throws std::invalid_argument for a training set it cannot use. */
    virtual void train(const std::complex<float>* rx,
                       std::size_t n,
                       const std::complex<float>* sent,
                       std::vector<apsm_filter>& filters) = 0;
    /*! The filters detect() uses (one per user, from one training). */
    virtual void set_filters(const std::vector<apsm_filter>& filters) = 0;
    /*! Soft symbols, users x n, of n <= max_symbols received vectors. */
    virtual void detect(const std::complex<float>* rx,
                        std::size_t n,
                        std::complex<float>* soft) = 0;
    /*! The device time of the last train() or detect() kernels (ms); -1 on the CPU. */
    virtual float last_kernel_ms() const { return -1.0f; }
    virtual gpu_fallback* fallback() { return nullptr; }
};

/*! The APSM factory: makes the engine on `backend` ("auto", "cpu" or "cuda":
 *  choose_backend(); the GPU takes at most 8 users, 16 antennas and 4096 pilots), the CPU
 *  engine always beside a GPU one for the fallback policy (core/engine.h). */
std::unique_ptr<apsm_engine> make_apsm_engine(const apsm_engine_config& config,
                                              const std::string& backend,
                                              std::string* fallback_reason = nullptr);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
