/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The backend choice the blocks with a GPU path share: "cpu", "cuda" or "auto".
 */
#ifndef INCLUDED_GPUMIMO_GPU_BACKEND_H
#define INCLUDED_GPUMIMO_GPU_BACKEND_H

#include <gnuradio/gpumimo/core/backend.h>
#include <gnuradio/logger.h>

#include <stdexcept>
#include <string>

namespace gr {
namespace gpumimo {

/*!
 * Whether a block runs on the GPU. backend must be "auto", "cuda" or "cpu"
 * (std::invalid_argument otherwise). For "cpu": false. Otherwise, when a CUDA device is
 * usable, try_gpu(why) builds the block's GPU objects and returns true, or returns false
 * with the reason in why (a std::runtime_error it throws, a CUDA failure, counts the
 * same). Without a GPU, "cuda" throws std::runtime_error naming the reason and "auto"
 * logs it as a warning, "backend 'auto' runs on <cpu_path>: <why>", and returns false.
 */
template <typename TryGpu>
bool choose_gpu(const std::string& backend,
                const gr::logger_ptr& logger,
                TryGpu&& try_gpu,
                const char* cpu_path = "the CPU")
{
    if (backend != "auto" && backend != "cpu" && backend != "cuda")
        throw std::invalid_argument("unknown backend '" + backend +
                                    "' (expected auto, cpu or cuda)");
    if (backend == "cpu")
        return false;
    std::string why;
    if (core::cuda_device_count(&why) == 0) {
        why = "no usable GPU (" + why + ")";
    } else {
        try {
            if (try_gpu(why))
                return true;
        } catch (const std::runtime_error& e) {
            why = e.what();
        }
    }
    if (backend == "cuda")
        throw std::runtime_error("backend 'cuda' is not usable: " + why);
    logger->warn("backend 'auto' runs on {}: {}", cpu_path, why);
    return false;
}

} // namespace gpumimo
} // namespace gr

#endif
