/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "block_support/engine_logging.h"

#include <gnuradio/gpumimo/batch_detector.h>

#include <stdexcept>

namespace gr {
namespace gpumimo {

batch_detector::batch_detector(const core::detector_spec& detector,
                               const std::string& modulation,
                               int nt,
                               int nr,
                               const std::string& backend,
                               int device,
                               bool double_precision)
    : d_logger(std::make_shared<gr::logger>("gpumimo.batch_detector"))
{
    core::detector_config c;
    c.spec = detector;
    c.mod = core::parse_modulation(modulation);
    c.nt = nt;
    c.nr = nr;
    c.device = device;
    c.double_precision = double_precision;
    d_nt = nt;
    d_nr = nr;
    d_engine = core::make_detector_engine(c, backend, &d_fallback_reason);
    const gr::logger_ptr logger = d_logger;
    d_engine->fallback()->set_reporter(
        [logger](const std::string& what) { logger->error("{}", what); });
    // gpumimo.detect() makes a detector per call: each reason is warned about once per
    // process, as for the blocks.
    if (!d_fallback_reason.empty() && first_report_of(d_fallback_reason))
        d_logger->warn("backend 'auto' falls back to the CPU: {}", d_fallback_reason);
}

batch_detector::batch_detector(const std::string& algorithm,
                               const std::string& modulation,
                               int nt,
                               int nr,
                               const core::detector_params& params,
                               const std::string& backend,
                               int device,
                               bool double_precision)
    : batch_detector(core::detector_spec(algorithm, params),
                     modulation,
                     nt,
                     nr,
                     backend,
                     device,
                     double_precision)
{
}

batch_detector::~batch_detector() = default;

void batch_detector::detect(const core::mimo_batch& batch,
                            float* llr,
                            unsigned threads) const
{
    const bool on_gpu = d_engine->fallback()->on_gpu();
    d_engine->detect(batch, llr, threads);
    if (on_gpu && d_engine->fallback()->on_gpu())
        d_gpu_batches++;
}

} // namespace gpumimo
} // namespace gr
