/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The LDPC decoder factory: the backend choice and the fallback policy (core/engine.h)
 * around the CPU reference and the GPU engine.
 */
#include "detail/gpu_engines.h"

#include <gnuradio/gpumimo/core/device_bytes.h>
#include <gnuradio/gpumimo/core/ldpc/ldpc_engine.h>

#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

class ldpc_with_fallback : public with_gpu_fallback<ldpc_decoder_engine>
{
public:
    ldpc_with_fallback(const ldpc_code& code,
                       const ldpc_engine_config& c,
                       std::unique_ptr<ldpc_decoder_engine> gpu)
        : with_gpu_fallback(std::move(gpu)), d_cpu(code, c.decoder), d_max_frames(c.max_frames)
    {
    }
    int codeword_bits() const override { return d_cpu.code().n; }
    std::size_t decode(const float* llr, std::size_t frames, const ldpc_outputs& out) override
    {
        check(frames);
        // LLRs in a device-resident stream buffer: the caller copies them for the CPU.
        return run_in_place(
            "ldpc decoder", [&] { return is_device_memory(llr); },
            [&](ldpc_decoder_engine& gpu) { return gpu.decode(llr, frames, out); },
            [&] { return d_cpu.decode(llr, frames, out); });
    }
    std::size_t decode(const std::int8_t* llr,
                       float scale,
                       std::size_t frames,
                       const ldpc_outputs& out) override
    {
        check(frames);
        return run_in_place(
            "ldpc decoder", [&] { return is_device_memory(llr); },
            [&](ldpc_decoder_engine& gpu) { return gpu.decode(llr, scale, frames, out); },
            [&] { return d_cpu.decode(llr, scale, frames, out); });
    }

private:
    // The same limit on every backend, so that a fallback changes nothing a caller sees.
    void check(std::size_t frames) const
    {
        if (frames > d_max_frames)
            throw std::invalid_argument("ldpc decoder: " + std::to_string(frames) +
                                        " codewords, more than max_frames (" +
                                        std::to_string(d_max_frames) + ")");
    }

    cpu_ldpc_decoder d_cpu;
    std::size_t d_max_frames;
};

} // namespace

std::unique_ptr<ldpc_decoder_engine> make_ldpc_decoder_engine(const ldpc_code& code,
                                                              const ldpc_engine_config& c,
                                                              const std::string& backend,
                                                              std::string* fallback_reason)
{
    c.decoder.validate();
    if (c.max_frames == 0)
        throw std::invalid_argument("ldpc decoder: max_frames must be > 0");
    return std::make_unique<ldpc_with_fallback>(
        code,
        c,
        choose_gpu_engine(
            backend,
            [&](std::string* why) { return detail::make_gpu_ldpc_decoder_engine(code, c, why); },
            fallback_reason));
}

} // namespace core
} // namespace gpumimo
} // namespace gr
