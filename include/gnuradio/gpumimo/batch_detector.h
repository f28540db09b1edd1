/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_BATCH_DETECTOR_H
#define INCLUDED_GPUMIMO_BATCH_DETECTOR_H

#include <gnuradio/gpumimo/api.h>
#include <gnuradio/gpumimo/core/detect/detector.h>
#include <gnuradio/gpumimo/core/detect/detector_engine.h>
#include <gnuradio/gpumimo/core/detect/detector_spec.h>
#include <gnuradio/logger.h>

#include <cstdint>
#include <memory>
#include <string>

namespace gr {
namespace gpumimo {

/*!
 * \brief A MIMO detector on batches in memory, on the backend asked for: the engine
 * behind the Python function gpumimo.detect() and the detector blocks.
 *
 * The engine comes from the core's factory (core::make_detector_engine): backend "cpu"
 * runs the core's CPU reference; "cuda" requires a usable GPU and a CUDA
 * implementation of the algorithm (docs/gpu.md lists them) and throws
 * std::runtime_error otherwise; "auto" takes the GPU when it can and otherwise the CPU,
 * logging once, through GNU Radio's logger, why. On the GPU, `device` selects the
 * device and `double_precision` the float64 kernels (equal to the CPU reference) over
 * the float32 ones (faster, within the rounding bound of docs/gpu.md).
 */
class GPUMIMO_API batch_detector
{
public:
    batch_detector(const core::detector_spec& detector,
                   const std::string& modulation,
                   int nt,
                   int nr,
                   const std::string& backend = "auto",
                   int device = 0,
                   bool double_precision = false);
    batch_detector(const std::string& algorithm,
                   const std::string& modulation,
                   int nt,
                   int nr,
                   const core::detector_params& params = core::detector_params(),
                   const std::string& backend = "auto",
                   int device = 0,
                   bool double_precision = false);
    ~batch_detector();

    /*! "cpu" or "cuda": where detect() runs (the CPU for good after a GPU failure: the
     *  fallback policy of core/engine.h, logged through GNU Radio's logger). */
    std::string backend() const { return d_engine->backend(); }
    /*! Why "auto" did not take the GPU (empty when it did or was not asked). */
    const std::string& fallback_reason() const { return d_fallback_reason; }
    int bits_per_vector() const { return d_engine->bits_per_vector(); }
    int nt() const { return d_nt; }
    int nr() const { return d_nr; }

    /*! See core::cpu_detector::detect() and core::gpu_detector::detect(); `threads`
     *  applies to the CPU. Not thread-safe on the GPU (one pipeline per detector). */
    void detect(const core::mimo_batch& batch, float* llr, unsigned threads = 0) const;
    /*! Batches detect() ran on the GPU (which path served the calls, for tests). */
    std::uint64_t gpu_batches() const { return d_gpu_batches; }

private:
    std::unique_ptr<core::detector_engine> d_engine;
    int d_nt, d_nr;
    std::string d_fallback_reason;
    gr::logger_ptr d_logger;
    mutable std::uint64_t d_gpu_batches = 0;
};

} // namespace gpumimo
} // namespace gr

#endif
