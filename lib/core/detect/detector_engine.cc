/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gnuradio/gpumimo/core/detect/detector_engine.h>
#include <gnuradio/gpumimo/core/detect/gpu_detector.h>
#include <gnuradio/gpumimo/core/engine.h>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

class cpu_engine : public detector_engine
{
public:
    explicit cpu_engine(const detector_config& c)
        : d_det(c.spec.algo(), c.mod, c.nt, c.nr, c.spec.params())
    {
    }
    const char* backend() const override { return "cpu"; }
    int bits_per_vector() const override { return d_det.bits_per_vector(); }
    void detect(const mimo_batch& batch, float* llr, unsigned threads) override
    {
        d_det.detect(batch, llr, threads);
    }

private:
    cpu_detector d_det;
};

class gpu_engine : public detector_engine
{
public:
    explicit gpu_engine(const detector_config& c)
        : d_det(c.spec.algo(),
                c.mod,
                c.nt,
                c.nr,
                c.spec.params(),
                c.device,
                c.double_precision ? gpu_precision::double_ : gpu_precision::single)
    {
    }
    const char* backend() const override { return "cuda"; }
    int bits_per_vector() const override { return d_det.bits_per_vector(); }
    void detect(const mimo_batch& batch, float* llr, unsigned) override
    {
        d_det.detect(batch, llr);
    }

private:
    gpu_detector d_det;
};

} // namespace

std::unique_ptr<detector_engine> make_detector_engine(const detector_config& c,
                                                      const std::string& backend,
                                                      std::string* fallback_reason)
{
    c.spec.check(c.mod, c.nt, c.nr);
    std::unique_ptr<detector_engine> engine;
    const bool gpu = choose_backend(
        backend,
        [&](std::string& why) {
            if (!gpu_supports(c.spec.algo(), c.mod, c.nt, c.nr, c.spec.params(), &why))
                return false;
            engine = std::make_unique<gpu_engine>(c);
            return true;
        },
        fallback_reason);
    if (!gpu)
        engine = std::make_unique<cpu_engine>(c);
    return engine;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
