/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gnuradio/gpumimo/batch_detector.h>
#include <gnuradio/gpumimo/core/backend.h>

#include <mutex>
#include <set>
#include <stdexcept>

namespace gr {
namespace gpumimo {

namespace {

// gpumimo.detect() makes a detector per call: warn about each fallback reason once per
// process, not once per call.
bool first_time(const std::string& message)
{
    static std::mutex mutex;
    static std::set<std::string> seen;
    std::lock_guard<std::mutex> lock(mutex);
    return seen.insert(message).second;
}
} // namespace

batch_detector::batch_detector(const std::string& algorithm,
                               const std::string& modulation,
                               int nt,
                               int nr,
                               const core::detector_params& params,
                               const std::string& backend,
                               int device,
                               bool double_precision)
    : d_logger(std::make_shared<gr::logger>("gpumimo.batch_detector"))
{
    const core::algorithm algo = core::parse_algorithm(algorithm);
    const core::modulation mod = core::parse_modulation(modulation);
    d_cpu = std::make_unique<core::cpu_detector>(algo, mod, nt, nr, params);

    if (backend != "auto" && backend != "cpu" && backend != "cuda")
        throw std::invalid_argument("unknown backend '" + backend +
                                    "' (expected auto, cpu or cuda)");
    if (backend == "cpu") {
        d_backend = "cpu";
        return;
    }
    std::string why;
    if (core::cuda_device_count(&why) == 0)
        why = "no usable GPU (" + why + ")";
    else
        core::gpu_supports(algo, mod, nt, nr, params, &why);
    if (why.empty()) {
        d_gpu = std::make_unique<core::gpu_detector>(algo,
                                                     mod,
                                                     nt,
                                                     nr,
                                                     params,
                                                     device,
                                                     double_precision
                                                         ? core::gpu_precision::double_
                                                         : core::gpu_precision::single);
        d_backend = "cuda";
        return;
    }
    if (backend == "cuda")
        throw std::runtime_error("backend 'cuda' is not usable: " + why);
    d_backend = "cpu";
    d_fallback_reason = why;
    if (first_time(why))
        d_logger->warn("backend 'auto' falls back to the CPU: {}", why);
}

batch_detector::~batch_detector() = default;

void batch_detector::detect(const core::mimo_batch& batch,
                            float* llr,
                            unsigned threads) const
{
    if (d_gpu) {
        d_gpu->detect(batch, llr);
        d_gpu_batches++;
        return;
    }
    d_cpu->detect(batch, llr, threads);
}

} // namespace gpumimo
} // namespace gr
