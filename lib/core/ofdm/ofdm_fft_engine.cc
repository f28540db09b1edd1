/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The OFDM FFT factory: the backend choice and the fallback policy (core/engine.h)
 * around the CPU engine (FFTW, or the reference without it) and the GPU engine.
 */
#include "detail/gpu_engines.h"

#include <gnuradio/gpumimo/core/device_bytes.h>
#include <gnuradio/gpumimo/core/ofdm/fftw_ofdm_fft.h>
#include <gnuradio/gpumimo/core/ofdm/ofdm_fft_engine.h>

#include <stdexcept>
#include <utility>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

class fftw_engine : public ofdm_fft_engine
{
public:
    explicit fftw_engine(const ofdm_fft_config& c) : d_fft(c) {}
    const char* backend() const override { return "cpu"; }
    std::string path() const override { return "FFTW"; }
    std::size_t process(const ofdm_fft_io& io) override { return d_fft.process(io); }

private:
    fftw_ofdm_fft d_fft;
};

class reference_engine : public ofdm_fft_engine
{
public:
    explicit reference_engine(const ofdm_fft_config& c) : d_fft(c) {}
    const char* backend() const override { return "cpu"; }
    std::string path() const override { return "the CPU reference (no FFTW in this build)"; }
    std::size_t process(const ofdm_fft_io& io) override { return d_fft.process(io); }

private:
    cpu_ofdm_fft d_fft;
};

class fft_with_fallback : public with_gpu_fallback<ofdm_fft_engine>
{
public:
    fft_with_fallback(std::unique_ptr<ofdm_fft_engine> cpu,
                      std::unique_ptr<ofdm_fft_engine> gpu,
                      int channels)
        : with_gpu_fallback(std::move(gpu)), d_cpu(std::move(cpu)), d_channels(channels)
    {
    }
    std::string path() const override
    {
        return d_fallback.on_gpu() ? d_gpu->path() : d_cpu->path();
    }
    std::size_t process(const ofdm_fft_io& io) override
    {
        // The CPU engine redoes a call the GPU failed, where it can reach its buffers.
        return run_in_place(
            "ofdm_fft", [&] { return touches_device(io); },
            [&](ofdm_fft_engine& gpu) { return gpu.process(io); },
            [&] { return d_cpu->process(io); });
    }
    // The GPU's submitted call is redone on the CPU if the GPU fails in either half.
    void submit(const ofdm_fft_io& io) override
    {
        d_submitted = io;
        d_submitted_on_gpu = false;
        d_done_zeroed = run_in_place(
            "ofdm_fft", [&] { return touches_device(io); },
            [&](ofdm_fft_engine& gpu) {
                gpu.submit(io);
                d_submitted_on_gpu = true;
                return std::size_t(0);
            },
            [&] { return d_cpu->process(io); });
    }
    std::size_t finish() override
    {
        if (!d_submitted_on_gpu)
            return std::exchange(d_done_zeroed, 0);
        d_submitted_on_gpu = false;
        return run_in_place(
            "ofdm_fft", [&] { return touches_device(d_submitted); },
            [&](ofdm_fft_engine& gpu) { return gpu.finish(); },
            [&] { return d_cpu->process(d_submitted); });
    }

private:
    bool touches_device(const ofdm_fft_io& io) const
    {
        if ((!io.in && !io.in_channels) || (!io.out && !io.out_channels))
            return false; // the engine refuses the call
        for (int c = 0; c < d_channels; c++)
            if (is_device_memory(channel_input(io, c, 1)) || is_device_memory(channel_output(io, c, 1)))
                return true;
        return false;
    }

    std::unique_ptr<ofdm_fft_engine> d_cpu;
    const int d_channels;
    ofdm_fft_io d_submitted;          // the call between submit() and finish()
    bool d_submitted_on_gpu = false;  // finish() waits for the GPU
    std::size_t d_done_zeroed = 0;    // the CPU did it in submit()
};

} // namespace

std::unique_ptr<ofdm_fft_engine> make_ofdm_fft_engine(const ofdm_fft_config& config,
                                                      const std::string& backend,
                                                      const ofdm_fft_options& options,
                                                      std::string* fallback_reason)
{
    validate(config);
    auto gpu = choose_gpu_engine(
        backend,
        [&](std::string* why) { return detail::make_gpu_ofdm_fft_engine(config, options, why); },
        fallback_reason);
    std::unique_ptr<ofdm_fft_engine> cpu;
    if (fftw_available())
        cpu = std::make_unique<fftw_engine>(config);
    else
        cpu = std::make_unique<reference_engine>(config);
    return std::make_unique<fft_with_fallback>(std::move(cpu), std::move(gpu), config.channels);
}

} // namespace core
} // namespace gpumimo
} // namespace gr
