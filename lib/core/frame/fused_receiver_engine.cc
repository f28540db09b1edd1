/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fused receiver factory: the backend choice and the fallback policy
 * (core/engine.h) around the CPU path and the GPU engine.
 */
#include "detail/gpu_engines.h"

#include <gnuradio/gpumimo/core/frame/fused_receiver_engine.h>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

class fused_with_fallback : public fused_receiver_engine
{
public:
    fused_with_fallback(const fused_receiver_config& c,
                        std::unique_ptr<fused_receiver_engine> gpu)
        : d_cpu(c), d_gpu(std::move(gpu)), d_fallback(d_gpu != nullptr)
    {
    }
    const char* backend() const override { return d_fallback.on_gpu() ? "cuda" : "cpu"; }
    fused_receiver_report process(const std::complex<float>* const* in,
                                  std::size_t frames,
                                  float* llr,
                                  float* noise_var) override
    {
        return d_fallback.run([&] { return d_gpu->process(in, frames, llr, noise_var); },
                              [&] { return d_cpu.process(in, frames, llr, noise_var); });
    }
    gpu_fallback* fallback() override { return &d_fallback; }

private:
    cpu_fused_receiver d_cpu;
    std::unique_ptr<fused_receiver_engine> d_gpu;
    gpu_fallback d_fallback;
};

} // namespace

std::unique_ptr<fused_receiver_engine> make_fused_receiver_engine(
    const fused_receiver_config& c, const std::string& backend, int device, std::string* reason)
{
    c.validate();
    std::unique_ptr<fused_receiver_engine> gpu;
    choose_backend(
        backend,
        [&](std::string& why) {
            gpu = detail::make_gpu_fused_receiver_engine(c, device, &why);
            return gpu != nullptr;
        },
        reason);
    return std::make_unique<fused_with_fallback>(c, std::move(gpu));
}

} // namespace core
} // namespace gpumimo
} // namespace gr
