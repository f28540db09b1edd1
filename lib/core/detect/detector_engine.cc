/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The detector factory: the backend choice and the fallback policy (core/engine.h)
 * around the CPU reference and the GPU engine (detail/gpu_engines.h).
 */
#include "detail/gpu_engines.h"

#include <gnuradio/gpumimo/core/detect/detector_engine.h>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

// The CPU reference, and a GPU engine in front of it while the GPU works.
class detector_with_fallback : public detector_engine
{
public:
    detector_with_fallback(const detector_config& c, std::unique_ptr<detector_engine> gpu)
        : d_cpu(c.spec.algo(), c.mod, c.nt, c.nr, c.spec.params()),
          d_gpu(std::move(gpu)),
          d_fallback(d_gpu != nullptr)
    {
    }
    const char* backend() const override { return d_fallback.on_gpu() ? "cuda" : "cpu"; }
    int bits_per_vector() const override { return d_cpu.bits_per_vector(); }
    void detect(const mimo_batch& batch, float* llr, unsigned threads) override
    {
        d_fallback.run([&] { d_gpu->detect(batch, llr, threads); },
                       [&] { d_cpu.detect(batch, llr, threads); });
    }
    gpu_fallback* fallback() override { return &d_fallback; }

private:
    cpu_detector d_cpu;
    std::unique_ptr<detector_engine> d_gpu;
    gpu_fallback d_fallback;
};

} // namespace

std::unique_ptr<detector_engine> make_detector_engine(const detector_config& c,
                                                      const std::string& backend,
                                                      std::string* fallback_reason)
{
    c.spec.check(c.mod, c.nt, c.nr);
    std::unique_ptr<detector_engine> gpu;
    choose_backend(
        backend,
        [&](std::string& why) {
            gpu = detail::make_gpu_detector_engine(c, &why);
            return gpu != nullptr;
        },
        fallback_reason);
    return std::make_unique<detector_with_fallback>(c, std::move(gpu));
}

} // namespace core
} // namespace gpumimo
} // namespace gr
