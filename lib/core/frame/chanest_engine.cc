/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * mimo_chanest's engine factory: the host engine (core::estimate_channels on a CPU
 * smoothing engine, core::phase_tracker), the backend choice and the fallback policy
 * (core/engine.h). The GPU engine is cuda/frame/gpu_chanest_engine.cu.
 */
#include "detail/gpu_engines.h"

#include <gnuradio/gpumimo/core/device_bytes.h>
#include <gnuradio/gpumimo/core/frame/chanest_engine.h>
#include <gnuradio/gpumimo/core/frame/phase_tracker.h>
#include <gnuradio/gpumimo/core/limits.h>
#include <gnuradio/gpumimo/core/frame/smoothing_engine.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

class host_chanest_engine : public chanest_engine
{
public:
    host_chanest_engine(const frame_format& frame, channel_estimator method, int rx, std::size_t max_frames)
        : d_frame((frame.validate(), frame)),
          d_rx((detail::check_chanest_shape(rx, max_frames), rx)), // before anything is sized by it
          d_carriers(std::size_t(frame.num.used_carriers)),
          d_training(std::size_t(1 + frame.streams)),
          d_payload(std::size_t(frame.payload_symbols)),
          d_items(estimate_items_of(frame, rx)),
          d_smoothing(make_smoothing_engine(
              frame.num, method, rx, frame.streams,
              double(preamble_empty_carriers(frame.num).size()) * rx, "cpu", 0, nullptr,
              max_frames)),
          d_tracker(frame),
          d_derotation(d_payload * std::size_t(rx)),
          d_payload_in(std::size_t(rx))
    {
    }
    const char* backend() const override { return "cpu"; }
    std::size_t max_frames() const override { return d_smoothing->max_frames(); }

    void estimate(const chanest_batch& b, std::vector<channel_estimate>& estimates) override
    {
        detail::check_chanest_batch(b, max_frames(), d_frame.symbols(), d_items.record_bytes());
        // Each usable frame's training symbols of every antenna, [rx][symbol][carrier],
        // gathered for estimate_channels.
        const std::size_t per_frame = std::size_t(d_rx) * d_training * d_carriers;
        d_training_rx.resize(b.frames * per_frame);
        d_training_at.clear();
        d_kept.clear();
        for (std::size_t f = 0; f < b.frames; f++) {
            b.usable[f] = usable(b, f);
            if (!b.usable[f])
                continue;
            std::complex<float>* frame = d_training_rx.data() + d_kept.size() * per_frame;
            for (int r = 0; r < d_rx; r++) {
                const std::complex<float>* x = b.in[r] + b.frame_at[f] * d_carriers;
                std::copy(x, x + d_training * d_carriers, frame + r * d_training * d_carriers);
            }
            d_training_at.push_back(frame);
            d_kept.push_back(f);
        }
        if (estimates.size() < b.frames) // never shrunk: the estimates' vectors are reused
            estimates.resize(b.frames);
        if (d_kept.empty())
            return;
        // Every frame usable (the usual case): the estimates straight into place; else
        // into d_kept_estimates, then swapped to their frames' places.
        const bool all = d_kept.size() == b.frames;
        std::vector<channel_estimate>& into = all ? estimates : d_kept_estimates;
        estimate_channels(d_frame, d_training_at.data(), d_kept.size(), d_rx, 0, *d_smoothing, into);
        for (std::size_t i = 0; i < d_kept.size(); i++) {
            if (!all)
                std::swap(estimates[d_kept[i]], d_kept_estimates[i]);
            derotate(b, d_kept[i], estimates[d_kept[i]]);
        }
        if (b.records)
            write_records(b, estimates);
    }

private:
    // The usable frames' records: straight into host memory; into device memory (this
    // engine standing in for the GPU one on a device-resident estimate stream) staged,
    // in one copy.
    void write_records(const chanest_batch& b, const std::vector<channel_estimate>& estimates)
    {
        const bool on_device = is_device_memory(b.records);
        if (on_device)
            d_record_stage.resize(b.frames * b.record_stride);
        unsigned char* to = on_device ? d_record_stage.data() : b.records;
        for (std::size_t f : d_kept)
            write_estimate_record(d_items, estimates[f], to + f * b.record_stride);
        if (on_device)
            copy_bytes(b.records, to, (b.frames - 1) * b.record_stride + d_items.record_bytes());
    }

    bool usable(const chanest_batch& b, std::size_t f) const
    {
        for (int r = 0; r < d_rx; r++)
            if (!all_usable(b.in[r] + b.frame_at[f] * d_carriers, d_frame.symbols() * d_carriers))
                return false;
        return true;
    }

    // Frame f's payload turned back by each symbol's phase (common, or per antenna where
    // the frame shows the antennas' oscillators apart), every used carrier.
    void derotate(const chanest_batch& b, std::size_t f, const channel_estimate& e)
    {
        for (int r = 0; r < d_rx; r++)
            d_payload_in[std::size_t(r)] = b.in[r] + (b.frame_at[f] + d_training) * d_carriers;
        d_tracker.estimate(e, d_payload_in.data(), d_derotation.data());
        for (int r = 0; r < d_rx; r++) {
            const std::complex<float>* x = d_payload_in[std::size_t(r)];
            std::complex<float>* y = b.payload[r] + f * d_payload * d_carriers;
            for (std::size_t s = 0; s < d_payload; s++)
                turn(d_derotation[s * std::size_t(d_rx) + std::size_t(r)], x + s * d_carriers,
                     y + s * d_carriers);
        }
    }

    // y = d x over a symbol's carriers, the product written out: std::complex's
    // operator* checks for NaN after each product, which keeps the loop from being
    // vectorised (the values here are finite: usable() checked them).
    void turn(std::complex<float> d, const std::complex<float>* x, std::complex<float>* y) const
    {
        const float dr = d.real(), di = d.imag();
        for (std::size_t c = 0; c < d_carriers; c++) {
            const float xr = x[c].real(), xi = x[c].imag();
            y[c] = std::complex<float>(dr * xr - di * xi, dr * xi + di * xr);
        }
    }

    const frame_format d_frame;
    const int d_rx;
    const std::size_t d_carriers, d_training, d_payload;
    const estimate_items d_items;                             // the records' layout
    std::unique_ptr<smoothing_engine> d_smoothing;
    phase_tracker d_tracker;
    std::vector<std::complex<float>> d_training_rx;           // [frame][rx][symbol][carrier]
    std::vector<const std::complex<float>*> d_training_at;    // [usable frame]
    std::vector<std::size_t> d_kept;                          // [usable frame]: its frame
    std::vector<channel_estimate> d_kept_estimates;           // [usable frame], some unusable
    std::vector<std::complex<float>> d_derotation;            // [payload symbol][antenna]
    std::vector<const std::complex<float>*> d_payload_in;     // [rx]: a frame's payload
    std::vector<unsigned char> d_record_stage;                // [frame][record_stride]
};

class chanest_with_fallback : public with_gpu_fallback<chanest_engine>
{
public:
    chanest_with_fallback(std::unique_ptr<chanest_engine> cpu,
                          std::unique_ptr<chanest_engine> gpu,
                          int rx)
        : with_gpu_fallback(std::move(gpu)), d_cpu(std::move(cpu)), d_rx(std::size_t(rx))
    {
    }
    std::size_t max_frames() const override { return d_cpu->max_frames(); }
    void estimate(const chanest_batch& b, std::vector<channel_estimate>& estimates) override
    {
        // Every output is rewritten by the host engine after a GPU failure mid-call,
        // where it can reach them.
        run_in_place(
            "chanest_engine",
            [&] { return any_device_memory(b.in, d_rx) || any_device_memory(b.payload, d_rx); },
            [&](chanest_engine& gpu) { gpu.estimate(b, estimates); },
            [&] { d_cpu->estimate(b, estimates); });
    }

private:
    std::unique_ptr<chanest_engine> d_cpu;
    const std::size_t d_rx;
};

} // namespace

std::unique_ptr<chanest_engine> make_chanest_engine(const frame_format& frame,
                                                    channel_estimator method,
                                                    int rx,
                                                    const std::string& backend,
                                                    int device,
                                                    std::string* reason,
                                                    std::size_t max_frames)
{
    // Its estimate stream carries one H per frame (core::estimate_items); a frame whose
    // channel is tracked in time needs one per payload symbol.
    if (frame.pilot_blocks() > 1)
        throw std::invalid_argument(
            "mimo_chanest: frames with pilot blocks (pilot_interval " +
            std::to_string(frame.pilot_interval) +
            ") are received by the fused receivers (fused_receiver, stream_receiver, "
            "mimo_ofdm_rx with fused on); the chain of blocks takes pilot_interval 0");
    auto cpu = std::make_unique<host_chanest_engine>(frame, method, rx, max_frames);
    return std::make_unique<chanest_with_fallback>(
        std::move(cpu),
        choose_gpu_engine(
            backend,
            [&](std::string* why) {
                return detail::make_gpu_chanest_engine(frame, method, rx, max_frames, device, why);
            },
            reason),
        rx);
}

} // namespace core
} // namespace gpumimo
} // namespace gr
