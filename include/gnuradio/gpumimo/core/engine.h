/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_ENGINE_H
#define INCLUDED_GPUMIMO_CORE_ENGINE_H

#include <gnuradio/gpumimo/core/backend.h>

#include <stdexcept>
#include <string>

namespace gr {
namespace gpumimo {
namespace core {

/*! \throws std::invalid_argument unless backend is "auto", "cpu" or "cuda". */
void check_backend_name(const std::string& backend);

/*!
 * \brief The auto/cpu/cuda choice of every engine factory (make_detector_engine,
 * link_simulator, the blocks' GPU paths): the one place it is made.
 *
 * make_gpu(why) builds the GPU engine and returns true, or returns false with the reason
 * in why. Returns whether the GPU engine was made:
 * - "cpu": false, make_gpu not called.
 * - "cuda": true, or std::runtime_error "backend 'cuda' is not usable: <why>" where no
 *   device is usable, make_gpu said no or threw std::runtime_error (a CUDA failure);
 *   any other exception of make_gpu (std::invalid_argument: a configuration the GPU
 *   cannot take) passes through unchanged.
 * - "auto": true, or false with the reason in *fallback_reason, whatever make_gpu threw:
 *   the caller then makes its CPU engine, which refuses configurations that no backend
 *   takes.
 */
template <typename MakeGpu>
bool choose_backend(const std::string& backend,
                    MakeGpu&& make_gpu,
                    std::string* fallback_reason = nullptr)
{
    check_backend_name(backend);
    if (backend == "cpu")
        return false;
    std::string why;
    if (cuda_device_count(&why) == 0) {
        why = "no usable GPU (" + why + ")";
    } else if (backend == "cuda") {
        try {
            if (make_gpu(why))
                return true;
        } catch (const std::runtime_error& e) {
            why = e.what();
        }
    } else {
        try {
            if (make_gpu(why))
                return true;
        } catch (const std::exception& e) {
            why = e.what();
        }
    }
    if (backend == "cuda")
        throw std::runtime_error("backend 'cuda' is not usable: " + why);
    if (fallback_reason)
        *fallback_reason = why;
    return false;
}

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
