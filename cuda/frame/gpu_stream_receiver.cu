/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The stream receiver on the GPU (core/frame/stream_receiver_engine.h): gpu_frame_sync
 * leaves its corrected frames on the device and gpu_fused_receiver takes them from
 * there, so the host copies the samples in and the LLRs out and nothing else.
 */
#include "common/device_memory.cuh"
#include "detail/gpu_engines.h"
#include "frame/gpu_frame_sync.cuh"

#include <gnuradio/gpumimo/core/frame/stream_receiver_engine.h>

#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

class gpu_stream_receiver : public stream_receiver_engine
{
public:
    gpu_stream_receiver(const fused_receiver_config& c, std::size_t max_input, std::size_t max_frames, int device)
        : d_sync(c.frame, c.rx, max_input, max_frames, device, false),
          d_rx(c, device),
          d_in(std::size_t(c.rx))
    {
        for (int a = 0; a < c.rx; a++)
            d_in[a] = d_sync.device_frames(a);
    }
    const char* backend() const override { return "cuda"; }
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
            d_sync.search_on_device(in, first_sample, n, max_frames, threshold, frames);
        fused_receiver_report rep;
        if (r.frames)
            rep = d_rx.process_device(d_in.data(), r.frames, llr, noise_var);
        if (report)
            *report = rep;
        return r;
    }

private:
    gpu_frame_sync d_sync;
    gpu_fused_receiver d_rx;
    std::vector<const std::complex<float>*> d_in; // the synchroniser's frames, per antenna
};

} // namespace

namespace detail {
std::unique_ptr<stream_receiver_engine>
make_gpu_stream_receiver_engine(const fused_receiver_config& config,
                                std::size_t max_input,
                                std::size_t max_frames,
                                int device,
                                std::string*)
{
    return std::make_unique<gpu_stream_receiver>(config, max_input, max_frames, device);
}
} // namespace detail

} // namespace core
} // namespace gpumimo
} // namespace gr
