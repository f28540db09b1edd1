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
class detector_with_fallback : public with_gpu_fallback<detector_engine>
{
public:
    detector_with_fallback(const detector_config& c, std::unique_ptr<detector_engine> gpu)
        : with_gpu_fallback(std::move(gpu)),
          d_cpu(c.spec.algo(), c.mod, c.nt, c.nr, c.spec.params())
    {
    }
    int bits_per_vector() const override { return d_cpu.bits_per_vector(); }
    void detect(const mimo_batch& batch, float* llr, unsigned threads) override
    {
        run([&](detector_engine& gpu) { gpu.detect(batch, llr, threads); },
            [&] { d_cpu.detect(batch, llr, threads); });
    }
    std::uint64_t search_budget_hits() const override
    {
        return d_cpu.search_budget_hits() + (d_gpu ? d_gpu->search_budget_hits() : 0);
    }

private:
    cpu_detector d_cpu;
};

} // namespace

std::unique_ptr<detector_engine> make_detector_engine(const detector_config& c,
                                                      const std::string& backend,
                                                      std::string* fallback_reason)
{
    c.spec.check(c.mod, c.nt, c.nr);
    return std::make_unique<detector_with_fallback>(
        c,
        choose_gpu_engine(
            backend,
            [&](std::string* why) { return detail::make_gpu_detector_engine(c, why); },
            fallback_reason));
}

} // namespace core
} // namespace gpumimo
} // namespace gr
