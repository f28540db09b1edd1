/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * mimo_chanest's engine factory: the host engine (core::estimate_channels on a CPU
 * smoothing engine, core::phase_tracker; frames with pilot blocks one by one, each block
 * estimated and each payload symbol's estimate interpolated), the backend choice and the fallback policy
 * (core/engine.h). The GPU engine is cuda/frame/gpu_chanest_engine.cu.
 */
#include "detail/gpu_engines.h"

#include <gnuradio/gpumimo/core/device_bytes.h>
#include <gnuradio/gpumimo/core/frame/estimation/chanest_engine.h>
#include <gnuradio/gpumimo/core/frame/estimation/phase_tracker.h>
#include <gnuradio/gpumimo/core/limits.h>
#include <gnuradio/gpumimo/core/frame/estimation/smoothing_engine.h>
#include <gnuradio/gpumimo/core/frame/estimation/time_tracking.h>

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
          d_payload_in(std::size_t(rx)),
          d_weights(time_weights(frame))
    {
    }
    const char* backend() const override { return "cpu"; }
    std::size_t max_frames() const override { return d_smoothing->max_frames(); }

    void estimate(const chanest_batch& b, std::vector<channel_estimate>& estimates) override
    {
        detail::check_chanest_batch(b, max_frames(), d_frame.symbols(), d_items.frame_record_bytes());
        if (d_frame.pilot_blocks() > 1)
            return estimate_tracked(b, estimates);
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
    // Frames with pilot blocks, one by one: each block estimated as the first, each
    // payload symbol's estimate interpolated between the blocks around it (its record,
    // and the phase tracker's reference for it), the payload turned back.
    void estimate_tracked(const chanest_batch& b, std::vector<channel_estimate>& estimates)
    {
        const std::size_t S = std::size_t(d_frame.symbols()), B = std::size_t(d_frame.pilot_blocks());
        if (estimates.size() < b.frames) // never shrunk: the estimates' vectors are reused
            estimates.resize(b.frames);
        if (d_blocks.size() < B)
            d_blocks.resize(B);
        d_frame_rx.resize(std::size_t(d_rx) * S * d_carriers);
        unsigned char* records = record_target(b);
        for (std::size_t f = 0; f < b.frames; f++) {
            b.usable[f] = usable(b, f);
            if (!b.usable[f])
                continue;
            for (int r = 0; r < d_rx; r++) // [rx][symbol][carrier], as estimate_channel takes it
                std::copy_n(b.in[r] + b.frame_at[f] * d_carriers, S * d_carriers,
                            d_frame_rx.data() + std::size_t(r) * S * d_carriers);
            for (std::size_t k = 0; k < B; k++)
                d_blocks[k] = estimate_channel(d_frame, d_frame_rx.data(), d_rx, int(S), *d_smoothing, int(k));
            d_tracker.begin(d_rx);
            for (std::size_t s = 0; s < d_payload; s++) {
                const time_weight& tw = d_weights[s];
                interpolate_estimate(d_blocks[std::size_t(tw.before)], d_blocks[std::size_t(tw.before) + 1],
                                     tw.w, d_symbol);
                for (int r = 0; r < d_rx; r++)
                    d_payload_in[std::size_t(r)] = payload_symbol(r, s);
                d_tracker.add_symbol(d_symbol, d_payload_in.data());
                if (records)
                    write_estimate_record(d_items, d_symbol,
                                          records + f * b.record_stride + s * d_items.item_bytes());
            }
            d_tracker.finish(d_blocks[0].noise_var, d_derotation.data());
            for (int r = 0; r < d_rx; r++)
                for (std::size_t s = 0; s < d_payload; s++)
                    turn(d_derotation[s * std::size_t(d_rx) + std::size_t(r)], payload_symbol(r, s),
                         b.payload[r] + (f * d_payload + s) * d_carriers);
            estimates[f] = d_blocks[0];
        }
        if (records)
            land_records(b, records);
    }

    // Payload symbol s of the frame in d_frame_rx on antenna r (its place among the
    // pilot blocks).
    const std::complex<float>* payload_symbol(int r, std::size_t s) const
    {
        const std::size_t S = std::size_t(d_frame.symbols());
        return d_frame_rx.data() +
               (std::size_t(r) * S + std::size_t(d_frame.payload_symbol_index(int(s)))) * d_carriers;
    }

    // Where the records are written: the caller's host memory, or a host stage for
    // records in device memory (this engine standing in for the GPU one on a
    // device-resident estimate stream); null where none are asked for.
    unsigned char* record_target(const chanest_batch& b)
    {
        if (!b.records)
            return nullptr;
        if (!is_device_memory(b.records))
            return b.records;
        d_record_stage.resize(b.frames * b.record_stride);
        return d_record_stage.data();
    }

    // Staged records to the device, in one copy.
    void land_records(const chanest_batch& b, const unsigned char* written)
    {
        if (written != b.records)
            copy_bytes(b.records, written, (b.frames - 1) * b.record_stride + d_items.frame_record_bytes());
    }

    // The usable frames' records.
    void write_records(const chanest_batch& b, const std::vector<channel_estimate>& estimates)
    {
        unsigned char* to = record_target(b);
        for (std::size_t f : d_kept)
            write_estimate_record(d_items, estimates[f], to + f * b.record_stride);
        land_records(b, to);
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
    // Frames with pilot blocks: each payload symbol's weights, one frame's symbols
    // [rx][symbol][carrier], its blocks' estimates, one symbol's interpolated estimate.
    const std::vector<time_weight> d_weights;
    std::vector<std::complex<float>> d_frame_rx;
    std::vector<channel_estimate> d_blocks;
    channel_estimate d_symbol;
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
