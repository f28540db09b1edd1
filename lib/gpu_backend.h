/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The backend choice the blocks with a GPU path share: "cpu", "cuda" or "auto".
 */
#ifndef INCLUDED_GPUMIMO_GPU_BACKEND_H
#define INCLUDED_GPUMIMO_GPU_BACKEND_H

#include <gnuradio/gpumimo/core/engine.h>
#include <gnuradio/logger.h>

#include <string>
#include <utility>

namespace gr {
namespace gpumimo {

/*!
 * Whether a block runs on the GPU: core::choose_backend() (the one auto/cpu/cuda rule of
 * every engine factory, core/engine.h) with its "auto" fallback logged as a warning,
 * "backend 'auto' runs on <cpu_path>: <why>". try_gpu(why) builds the block's GPU
 * objects and returns true, or returns false with the reason in why.
 */
template <typename TryGpu>
bool choose_gpu(const std::string& backend,
                const gr::logger_ptr& logger,
                TryGpu&& try_gpu,
                const char* cpu_path = "the CPU")
{
    std::string why;
    if (core::choose_backend(backend, std::forward<TryGpu>(try_gpu), &why))
        return true;
    if (backend == "auto")
        logger->warn("backend 'auto' runs on {}: {}", cpu_path, why);
    return false;
}

} // namespace gpumimo
} // namespace gr

#endif
