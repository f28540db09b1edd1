/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The blocks' side of the core's engine factories: what the factory decided, and the
 * fallback policy's reports (core/engine.h), through the block's GNU Radio logger.
 */
#ifndef INCLUDED_GPUMIMO_ENGINE_LOGGING_H
#define INCLUDED_GPUMIMO_ENGINE_LOGGING_H

#include <gnuradio/gpumimo/core/engine.h>
#include <gnuradio/logger.h>

#include <string>

namespace gr {
namespace gpumimo {

/*!
 * make(&why) calls a core factory (make_X_engine(..., backend, &why)). Where "auto" fell
 * back to the CPU this logs "backend 'auto' runs on <cpu_path>: <why>" as a warning; a
 * later GPU failure, after which the engine goes on with the CPU for good, is logged as
 * an error.
 */
template <typename Make>
auto make_logged_engine(const gr::logger_ptr& logger,
                        Make&& make,
                        const char* cpu_path = "the CPU")
{
    std::string why;
    auto engine = make(&why);
    if (!why.empty())
        logger->warn("backend 'auto' runs on {}: {}", cpu_path, why);
    if (core::gpu_fallback* f = engine->fallback())
        f->set_reporter([logger](const std::string& what) { logger->error("{}", what); });
    return engine;
}

} // namespace gpumimo
} // namespace gr

#endif
