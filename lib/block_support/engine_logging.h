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

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>

namespace gr {
namespace gpumimo {

/*!
 * An engine made before its block: a block whose ports depend on where its engine runs
 * (device-resident stream buffers on the GPU) makes it in its make(), before the block
 * and its logger exist; adopt_engine() then logs what the factory decided.
 */
template <typename Engine>
struct early_engine {
    std::unique_ptr<Engine> engine;
    std::string why; // why "auto" fell back to the CPU; empty otherwise
    bool on_gpu() const { return std::string(engine->backend()) == "cuda"; }
};

/*! make(&why) calls a core factory (make_X_engine(..., backend, &why)). */
template <typename Make>
auto make_early_engine(Make&& make)
{
    std::string why;
    auto engine = make(&why);
    using Engine = typename decltype(engine)::element_type;
    return early_engine<Engine>{ std::move(engine), std::move(why) };
}

/*!
 * Whether this process reports `why` (a reason for "auto" to run on the CPU) for the
 * first time: a machine without a usable GPU would otherwise print the same warning
 * once per block (24 times in a gpumimo_replay run).
 */
inline bool first_report_of(const std::string& why)
{
    static std::mutex mutex;
    static std::set<std::string> seen;
    const std::lock_guard<std::mutex> lock(mutex);
    return seen.insert(why).second;
}

/*!
 * Where "auto" fell back to the CPU this logs "backend 'auto' runs on <cpu_path>: <why>"
 * as a warning the first time the process meets that reason, at trace level after (Debian
 * ships GNU Radio logging at debug level); a
 * later GPU failure, after which the engine goes on with the CPU for good, is logged as
 * an error.
 */
template <typename Engine>
std::unique_ptr<Engine> adopt_engine(const gr::logger_ptr& logger,
                                     early_engine<Engine>&& made,
                                     const char* cpu_path = "the CPU")
{
    if (!made.why.empty()) {
        if (first_report_of(made.why))
            logger->warn(
                "backend 'auto' runs on {}: {} (other blocks that do so for this "
                "reason say it at trace level)",
                cpu_path,
                made.why);
        else
            logger->trace("backend 'auto' runs on {}: {}", cpu_path, made.why);
    }
    if (core::gpu_fallback* f = made.engine->fallback())
        f->set_reporter([logger](const std::string& what) { logger->error("{}", what); });
    return std::move(made.engine);
}

/*! make_early_engine then adopt_engine, for a block that makes its engine itself. */
template <typename Make>
auto make_logged_engine(const gr::logger_ptr& logger,
                        Make&& make,
                        const char* cpu_path = "the CPU")
{
    return adopt_engine(logger, make_early_engine(std::forward<Make>(make)), cpu_path);
}

} // namespace gpumimo
} // namespace gr

#endif
