/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The stream receiver factory: the CPU engine (the synchroniser's reference engine and
 * the CPU fused receiver one after the other), the backend choice and the fallback
 * policy (core/engine.h).
 */
#include "detail/gpu_engines.h"

#include <gnuradio/gpumimo/core/frame/stream_receiver_engine.h>

#include <stdexcept>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

void check_config(const fused_receiver_config& c)
{
    c.validate();
    if (!c.code.empty())
        throw std::invalid_argument("stream_receiver_engine: gives LLRs; decode them after "
                                    "it (a code is the fused receiver's or the LDPC "
                                    "decoder's)");
}

class cpu_stream_receiver : public stream_receiver_engine
{
public:
    cpu_stream_receiver(const fused_receiver_config& c, std::size_t max_input, std::size_t max_frames)
        : d_sync(make_cpu_frame_sync_engine(c.frame, c.rx, max_input, max_frames)),
          d_rx(c),
          d_frames(std::size_t(c.rx) * max_frames * c.frame.samples()),
          d_out(std::size_t(c.rx)),
          d_in(std::size_t(c.rx))
    {
        for (int a = 0; a < c.rx; a++) {
            d_out[a] = d_frames.data() + std::size_t(a) * max_frames * c.frame.samples();
            d_in[a] = d_out[a];
        }
    }
    const char* backend() const override { return "cpu"; }
    sync_call_result process(const std::complex<float>* const* in,
                             std::uint64_t first_sample,
                             std::size_t n,
                             std::size_t max_frames,
                             double threshold,
                             float* llr,
                             float* noise_var,
                             synced_frame* frames,
                             fused_receiver_report* report) override
    {
        const sync_call_result r =
            d_sync->search(in, first_sample, n, max_frames, threshold, d_out.data(), frames);
        fused_receiver_report rep;
        if (r.frames)
            rep = d_rx.process(d_in.data(), r.frames, llr, noise_var);
        if (report)
            *report = rep;
        return r;
    }

private:
    std::unique_ptr<frame_sync_engine> d_sync;
    cpu_fused_receiver d_rx;
    std::vector<std::complex<float>> d_frames; // [antenna][max_frames][samples]
    std::vector<std::complex<float>*> d_out;
    std::vector<const std::complex<float>*> d_in;
};

class stream_with_fallback : public with_gpu_fallback<stream_receiver_engine>
{
public:
    stream_with_fallback(std::unique_ptr<stream_receiver_engine> cpu,
                         std::unique_ptr<stream_receiver_engine> gpu)
        : with_gpu_fallback(std::move(gpu)), d_cpu(std::move(cpu))
    {
    }
    sync_call_result process(const std::complex<float>* const* in,
                             std::uint64_t first_sample,
                             std::size_t n,
                             std::size_t max_frames,
                             double threshold,
                             float* llr,
                             float* noise_var,
                             synced_frame* frames,
                             fused_receiver_report* report) override
    {
        return run(
            [&](stream_receiver_engine& gpu) {
                return gpu.process(in, first_sample, n, max_frames, threshold, llr, noise_var,
                                   frames, report);
            },
            [&] {
                return d_cpu->process(in, first_sample, n, max_frames, threshold, llr, noise_var,
                                      frames, report);
            });
    }

private:
    std::unique_ptr<stream_receiver_engine> d_cpu;
};

} // namespace

std::unique_ptr<stream_receiver_engine> make_cpu_stream_receiver_engine(
    const fused_receiver_config& config, std::size_t max_input, std::size_t max_frames)
{
    check_config(config);
    return std::make_unique<cpu_stream_receiver>(config, max_input, max_frames);
}

std::unique_ptr<stream_receiver_engine>
make_stream_receiver_engine(const fused_receiver_config& config,
                            std::size_t max_input,
                            std::size_t max_frames,
                            const std::string& backend,
                            int device,
                            std::string* reason)
{
    auto cpu = make_cpu_stream_receiver_engine(config, max_input, max_frames);
    return std::make_unique<stream_with_fallback>(
        std::move(cpu),
        choose_gpu_engine(
            backend,
            [&](std::string* why) {
                return detail::make_gpu_stream_receiver_engine(config, max_input, max_frames,
                                                               device, why);
            },
            reason));
}

} // namespace core
} // namespace gpumimo
} // namespace gr
