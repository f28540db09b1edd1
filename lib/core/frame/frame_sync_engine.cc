/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The synchroniser factory: the CPU engine (search_step's loop and frame_corrector, the
 * reference), the backend choice and the fallback policy (core/engine.h).
 */
#include "detail/gpu_engines.h"

#include <gnuradio/gpumimo/core/device_bytes.h>

#include <gnuradio/gpumimo/core/frame/frame_receiver.h>
#include <gnuradio/gpumimo/core/frame/frame_sync_engine.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

namespace detail {
void check_sync_call(std::size_t n,
                     std::size_t max_input,
                     std::size_t max_frames,
                     std::size_t capacity,
                     double threshold)
{
    if (n > max_input)
        throw std::invalid_argument("frame_sync_engine: " + std::to_string(n) +
                                    " samples offered, at most " + std::to_string(max_input) +
                                    " per call (max_input)");
    if (max_frames > capacity)
        throw std::invalid_argument("frame_sync_engine: max_frames above the engine's " +
                                    std::to_string(capacity));
    if (!(threshold >= 0 && threshold <= 1))
        throw std::invalid_argument(
            "frame_sync_engine: threshold must be in (0, 1], or automatic_threshold (0)");
}
} // namespace detail

namespace {

void check_sizes(const frame_format& frame, int antennas, std::size_t max_input, std::size_t max_frames)
{
    frame.validate();
    if (antennas < 1 || antennas > 64)
        throw std::invalid_argument("frame_sync_engine: antennas must be 1..64");
    if (max_input < search_window(frame))
        throw std::invalid_argument("frame_sync_engine: max_input must be at least a "
                                    "search window (a frame and two margins)");
    if (max_frames < 1)
        throw std::invalid_argument("frame_sync_engine: max_frames must be >= 1");
}

class cpu_frame_sync : public frame_sync_engine
{
public:
    cpu_frame_sync(const frame_format& frame, int antennas, std::size_t max_input, std::size_t max_frames)
        : d_frame(frame),
          d_antennas(antennas),
          d_max_input(max_input),
          d_max_frames(max_frames),
          d_corrector(frame),
          d_window(std::size_t(antennas)),
          d_from(std::size_t(antennas)),
          d_to(std::size_t(antennas))
    {
        check_sizes(frame, antennas, max_input, max_frames);
    }
    const char* backend() const override { return "cpu"; }

    // mimo_ofdm_sync's loop as it was before the engines: windows of up to
    // search_window() samples while a frame and a margin remain.
    sync_call_result search(const std::complex<float>* const* in,
                            std::uint64_t,
                            std::size_t n,
                            std::size_t max_frames,
                            double threshold,
                            std::complex<float>* const* out,
                            synced_frame* frames) override
    {
        detail::check_sync_call(n, d_max_input, max_frames, d_max_frames, threshold);
        const std::size_t len = d_frame.samples(), margin = search_margin(d_frame),
                          window = search_window(d_frame);
        sync_call_result r;
        std::size_t pos = 0;
        while (n - pos >= len + margin && r.frames < max_frames) {
            const std::size_t w = std::min(n - pos, window);
            for (int a = 0; a < d_antennas; a++)
                d_window[a] = in[a] + pos;
            const frame_search_step step =
                search_step(d_frame, d_window.data(), d_antennas, w, threshold);
            if (step.whole) {
                const std::size_t start = pos + step.sync.start;
                for (int a = 0; a < d_antennas; a++) {
                    d_from[a] = in[a] + start;
                    d_to[a] = out[a] + r.frames * len;
                }
                synced_frame& f = frames[r.frames++];
                f.start = start;
                f.metric = step.sync.metric;
                f.cfo = d_corrector.correct(d_from.data(), d_antennas, step.sync.cfo, d_to.data());
                f.usable = d_corrector.last_input_finite();
            }
            pos += std::max<std::size_t>(1, step.advance);
        }
        r.consumed = pos;
        return r;
    }

private:
    const frame_format d_frame;
    const int d_antennas;
    const std::size_t d_max_input, d_max_frames;
    frame_corrector d_corrector;
    std::vector<const std::complex<float>*> d_window, d_from;
    std::vector<std::complex<float>*> d_to;
};

class sync_with_fallback : public with_gpu_fallback<frame_sync_engine>
{
public:
    sync_with_fallback(std::unique_ptr<frame_sync_engine> cpu,
                       std::unique_ptr<frame_sync_engine> gpu,
                       int antennas)
        : with_gpu_fallback(std::move(gpu)), d_cpu(std::move(cpu)), d_antennas(std::size_t(antennas))
    {
    }
    sync_call_result search(const std::complex<float>* const* in,
                            std::uint64_t first_sample,
                            std::size_t n,
                            std::size_t max_frames,
                            double threshold,
                            std::complex<float>* const* out,
                            synced_frame* frames) override
    {
        // The frames go into the caller's outputs, on the device where they are
        // device-resident stream buffers (to a GPU ofdm_fft).
        return run_in_place(
            "frame_sync_engine",
            [&] { return any_device_memory(in, d_antennas) || any_device_memory(out, d_antennas); },
            [&](frame_sync_engine& gpu) {
                return gpu.search(in, first_sample, n, max_frames, threshold, out, frames);
            },
            [&] { return d_cpu->search(in, first_sample, n, max_frames, threshold, out, frames); });
    }

private:
    std::unique_ptr<frame_sync_engine> d_cpu;
    const std::size_t d_antennas;
};

} // namespace

std::unique_ptr<frame_sync_engine> make_cpu_frame_sync_engine(const frame_format& frame,
                                                              int antennas,
                                                              std::size_t max_input,
                                                              std::size_t max_frames)
{
    return std::make_unique<cpu_frame_sync>(frame, antennas, max_input, max_frames);
}

std::unique_ptr<frame_sync_engine> make_frame_sync_engine(const frame_format& frame,
                                                          int antennas,
                                                          std::size_t max_input,
                                                          std::size_t max_frames,
                                                          const std::string& backend,
                                                          int device,
                                                          std::string* reason)
{
    check_sizes(frame, antennas, max_input, max_frames);
    auto cpu = make_cpu_frame_sync_engine(frame, antennas, max_input, max_frames);
    return std::make_unique<sync_with_fallback>(
        std::move(cpu),
        choose_gpu_engine(
            backend,
            [&](std::string* why) {
                return detail::make_gpu_frame_sync_engine(frame, antennas, max_input, max_frames,
                                                          device, why);
            },
            reason),
        antennas);
}

} // namespace core
} // namespace gpumimo
} // namespace gr
