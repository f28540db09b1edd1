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

class fused_with_fallback : public with_gpu_fallback<fused_receiver_engine>
{
public:
    fused_with_fallback(const fused_receiver_config& c,
                        std::unique_ptr<fused_receiver_engine> gpu)
        : with_gpu_fallback(std::move(gpu)), d_cpu(c)
    {
    }
    fused_receiver_report process(const std::complex<float>* const* in,
                                  std::size_t frames,
                                  float* llr,
                                  float* noise_var) override
    {
        return run(
            [&](fused_receiver_engine& gpu) { return gpu.process(in, frames, llr, noise_var); },
            [&] { return d_cpu.process(in, frames, llr, noise_var); });
    }
    fused_receiver_report process_decoded(const std::complex<float>* const* in,
                                          std::size_t frames,
                                          std::uint8_t* info,
                                          fused_decode_report* decoded,
                                          float* noise_var) override
    {
        return run(
            [&](fused_receiver_engine& gpu) {
                return gpu.process_decoded(in, frames, info, decoded, noise_var);
            },
            [&] { return d_cpu.process_decoded(in, frames, info, decoded, noise_var); });
    }

private:
    cpu_fused_receiver d_cpu;
};

} // namespace

std::unique_ptr<fused_receiver_engine> make_fused_receiver_engine(
    const fused_receiver_config& c, const std::string& backend, int device, std::string* reason)
{
    c.validate();
    return std::make_unique<fused_with_fallback>(
        c,
        choose_gpu_engine(
            backend,
            [&](std::string* why) { return detail::make_gpu_fused_receiver_engine(c, device, why); },
            reason));
}

} // namespace core
} // namespace gpumimo
} // namespace gr
