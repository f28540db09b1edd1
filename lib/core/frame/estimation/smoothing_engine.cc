/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The smoothing factory: the CPU engine (channel_smoother), the backend choice and the
 * fallback policy (core/engine.h).
 */
#include "detail/gpu_engines.h"

#include <gnuradio/gpumimo/core/frame/estimation/smoothing_engine.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

class cpu_smoothing : public smoothing_engine
{
public:
    cpu_smoothing(const numerology& num,
                  channel_estimator method,
                  int rx,
                  int tx,
                  double n0_samples,
                  std::size_t max_frames)
        : d_smoother(num, method),
          d_rx(rx),
          d_tx(tx),
          d_n0_samples(n0_samples),
          d_max_frames(max_frames)
    {
        if (rx < 1 || tx < 1)
            throw std::invalid_argument("smoothing_engine: rx and tx must be >= 1");
        if (max_frames < 1)
            throw std::invalid_argument("smoothing_engine: max_frames must be >= 1");
    }
    std::size_t max_frames() const override { return d_max_frames; }
    void smooth_frames(std::complex<float>* const* h,
                       const double* n0,
                       float* const* error_var,
                       std::size_t frames,
                       int rx,
                       int tx) override
    {
        detail::check_smoothing_frames(frames, d_max_frames);
        for (std::size_t f = 0; f < frames; f++)
            smooth(h[f], rx, tx, n0[f], error_var[f]);
    }
    const char* backend() const override { return "cpu"; }
    channel_estimator method() const override { return d_smoother.method(); }
    int carriers() const override { return d_smoother.carriers(); }
    void smooth(std::complex<float>* h, int rx, int tx, double n0, float* error_var) override
    {
        detail::check_smoothing_shape(rx, tx, d_rx, d_tx);
        d_smoother.smooth(h, rx, tx, n0, error_var, d_n0_samples);
    }

private:
    channel_smoother d_smoother;
    const int d_rx, d_tx;
    const double d_n0_samples;
    const std::size_t d_max_frames;
};

class smoothing_with_fallback : public with_gpu_fallback<smoothing_engine>
{
public:
    smoothing_with_fallback(std::unique_ptr<smoothing_engine> cpu,
                            std::unique_ptr<smoothing_engine> gpu,
                            std::size_t values)
        : with_gpu_fallback(std::move(gpu)), d_cpu(std::move(cpu))
    {
        d_keep.reserve(values); // smooth_frames() allocates nothing
    }
    channel_estimator method() const override { return d_cpu->method(); }
    int carriers() const override { return d_cpu->carriers(); }
    std::size_t max_frames() const override { return d_cpu->max_frames(); }
    void smooth_frames(std::complex<float>* const* h,
                       const double* n0,
                       float* const* error_var,
                       std::size_t frames,
                       int rx,
                       int tx) override
    {
        detail::check_smoothing_frames(frames, max_frames());
        // The GPU's failure mid-call may leave h half written: the CPU redoes it from a
        // copy taken before.
        const std::size_t values = std::size_t(carriers()) * rx * tx;
        run(
            [&](smoothing_engine& gpu) {
                d_keep.resize(frames * values);
                for (std::size_t f = 0; f < frames; f++)
                    std::copy_n(h[f], values, d_keep.begin() + f * values);
                gpu.smooth_frames(h, n0, error_var, frames, rx, tx);
            },
            [&] {
                if (d_keep.size() == frames * values)
                    for (std::size_t f = 0; f < frames; f++)
                        std::copy_n(d_keep.begin() + f * values, values, h[f]);
                d_keep.clear();
                d_cpu->smooth_frames(h, n0, error_var, frames, rx, tx);
            });
        d_keep.clear();
    }
    void smooth(std::complex<float>* h, int rx, int tx, double n0, float* error_var) override
    {
        smooth_frames(&h, &n0, &error_var, 1, rx, tx);
    }

private:
    std::unique_ptr<smoothing_engine> d_cpu;
    std::vector<std::complex<float>> d_keep;
};

} // namespace

std::unique_ptr<smoothing_engine> make_smoothing_engine(const numerology& num,
                                                        channel_estimator method,
                                                        int rx,
                                                        int tx,
                                                        double n0_samples,
                                                        const std::string& backend,
                                                        int device,
                                                        std::string* reason,
                                                        std::size_t max_frames)
{
    auto cpu = std::make_unique<cpu_smoothing>(num, method, rx, tx, n0_samples, max_frames);
    return std::make_unique<smoothing_with_fallback>(
        std::move(cpu),
        choose_gpu_engine(
            backend,
            [&](std::string* why) {
                return detail::make_gpu_smoothing_engine(num, method, rx, tx, n0_samples,
                                                         max_frames, device, why);
            },
            reason),
        max_frames * std::size_t(num.used_carriers) * rx * tx);
}

} // namespace core
} // namespace gpumimo
} // namespace gr
