/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The stream receiver block: a core::stream_receiver_engine over the input buffers,
 * LLRs of the frames it finds out, the drops mimo_ofdm_sync makes, frame tags.
 */
#include "block_support/block_faults.h"
#include "block_support/engine_logging.h"
#include "block_support/flowgraph_stop.h"
#include "block_support/stream_buffer_sizes.h"
#include "block_support/receiver_block_config.h"
#include "block_support/stream_buffer_pins.h"
#include "block_support/synced_frame_gate.h"

#include <gnuradio/gpumimo/core/frame/frame_receiver.h>
#include <gnuradio/gpumimo/core/frame/stream_receiver_engine.h>
#include <gnuradio/gpumimo/core/detect/detector.h>
#include <gnuradio/gpumimo/mimo_ofdm_sync.h>
#include <gnuradio/gpumimo/stream_receiver.h>
#include <gnuradio/io_signature.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {

class stream_receiver_impl : public pinned_while_on_gpu<stream_receiver>
{
public:
    // Frames per call at most: the GPU receiver's chunk (16 frames of 4 antennas), so
    // one call fills it.
    static constexpr std::size_t max_frames_per_call = 16;

    stream_receiver_impl(const core::fused_receiver_config& config,
                         const std::string& backend,
                         int device,
                         bool int8_output,
                         float int8_scale,
                         double threshold)
        : gr::block("stream_receiver",
                    gr::io_signature::make(config.rx, config.rx, sizeof(gr_complex)),
                    gr::io_signature::make(1, 1, int8_output ? sizeof(std::int8_t) : sizeof(float))),
          d_config(config),
          d_backend_request(backend),
          d_device(device),
          d_int8(int8_output),
          d_int8_scale(int8_scale),
          d_threshold(threshold),
          d_len(config.frame.samples()),
          d_margin(core::search_margin(config.frame)),
          d_max_input(core::search_window(config.frame) + (max_frames_per_call - 1) * d_len),
          d_bits(config.frame.payload_bits()),
          d_key(pmt::intern("frame_start")),
          d_rx_time(pmt::intern("rx_time")),
          d_found(max_frames_per_call),
          d_llr(int8_output ? max_frames_per_call * d_bits : 0),
          d_noise(max_frames_per_call),
          d_in(std::size_t(config.rx))
    {
        d_engine = make_engine(config);
        set_output_multiple(int(d_bits));
        // Room for a whole call's frames: with GNU Radio's default (twice the output
        // multiple) a call could find at most two frames, and every GPU round trip would
        // carry two frames' work.
        set_min_output_buffer_on_every_port(*this, long(max_frames_per_call * d_bits));
        ask_upstream_for_items(*this, d_bits, d_max_input + d_len);
        set_tag_propagation_policy(TPP_DONT); // also: the rate above is a buffer hint
    }

    core::detector_spec detector() const override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return core::detector_spec(d_config.algo, d_config.params);
    }
    void set_detector(const core::detector_spec& spec) override
    {
        core::fused_receiver_config next = d_config;
        next.algo = spec.algo();
        next.params = spec.params();
        auto engine = make_engine(next); // built in the caller's thread, then swapped
        std::lock_guard<std::mutex> lock(d_mutex);
        d_config = next;
        d_engine = std::move(engine);
    }
    void set_threshold(double threshold) override
    {
        mimo_ofdm_sync::check_threshold(threshold);
        d_threshold = threshold;
    }
    double threshold() const override { return d_threshold.load(); }
    int payload_bits() const override { return int(d_bits); }
    std::string backend() const override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_engine->backend();
    }
    std::uint64_t frames() const override { return d_frames; }
    std::uint64_t dropped_frames() const override { return d_gate.dropped(); }
    std::uint64_t damaged_frames() const override { return d_gate.damaged(); }
    std::uint64_t unusable_estimates() const override { return d_unusable; }
    double last_cfo() const override { return d_last_cfo; }
    double last_noise_var() const override { return d_last_noise; }
    std::uint64_t work_failures() const override { return d_faults.count(); }

    // On the GPU the engine copies the samples in and the LLRs out by DMA straight from
    // and to page-locked stream buffers, with no pass over them in this thread.

    void forecast(int, gr_vector_int& ninput_items_required) override
    {
        for (auto& n : ninput_items_required)
            n = int(d_len + d_margin);
    }

    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override
    {
        const core::cancel_scope stopping(&flowgraph_stopping); // a long CPU search ends on stop()
        const std::size_t available =
            std::size_t(*std::min_element(ninput_items.begin(), ninput_items.end()));
        const std::size_t n = std::min(available, d_max_input);
        const std::size_t room = std::min(std::size_t(noutput_items) / d_bits, max_frames_per_call);
        if (n < d_len + d_margin || room == 0)
            return 0;
        for (int a = 0; a < d_config.rx; a++)
            d_in[a] = static_cast<const gr_complex*>(input_items[a]);
        core::sync_call_result r;
        core::fused_receiver_report rep;
        // Float LLRs land straight in the output buffer (room frames fit there), not in
        // d_llr and then a copy: one pass over every LLR less in this thread.
        float* const llr = d_int8 ? d_llr.data() : static_cast<float*>(output_items[0]);
        std::lock_guard<std::mutex> lock(d_mutex); // set_detector() swaps the engine
        try {
            r = d_engine->process(d_in.data(), nitems_read(0), n, room, d_threshold.load(),
                                  llr, d_noise.data(), d_found.data(), &rep);
        } catch (...) { // the searched samples are passed over; the stream goes on
            d_faults.caught("the " + std::to_string(n) + " samples searched are passed over");
            consume_each(int(n));
            return 0;
        }
        if (rep.unusable_estimates) {
            d_unusable += rep.unusable_estimates;
            d_log.warn("unusable estimate", [&] {
                return "unusable channel estimates (not finite, rank deficient): their LLRs "
                       "are zero (" + std::to_string(d_unusable) + " so far)";
            });
        }
        std::size_t produced = 0;
        d_rx_time_tags.clear();
        get_tags_in_range(d_rx_time_tags, 0, nitems_read(0), nitems_read(0) + n, d_rx_time);
        for (std::size_t k = 0; k < r.frames; k++)
            if (d_gate.pass(d_found[k], nitems_read(0), d_len, d_rx_time_tags))
                emit(k, produced++, llr, output_items[0]);
        consume_each(int(r.consumed));
        return int(produced * d_bits);
    }

private:
    std::unique_ptr<core::stream_receiver_engine> make_engine(const core::fused_receiver_config& c)
    {
        return make_logged_engine(d_logger, [&](std::string* why) {
            return core::make_stream_receiver_engine(c, d_max_input, max_frames_per_call,
                                                     d_backend_request, d_device, why);
        });
    }

    // Frame k of the call's results (in `llr`) to output frame `slot` <= k, tagged. With
    // float output `llr` is the output buffer itself: a frame moves down only past a
    // dropped one.
    void emit(std::size_t k, std::size_t slot, const float* llr, void* out)
    {
        if (d_int8)
            core::llr_to_int8(llr + k * d_bits, d_bits, d_int8_scale,
                              static_cast<std::int8_t*>(out) + slot * d_bits);
        else if (slot != k)
            std::memmove(static_cast<float*>(out) + slot * d_bits, llr + k * d_bits,
                         d_bits * sizeof(float));
        const core::synced_frame& f = d_found[k];
        const pmt::pmt_t info = frame_start_info(d_frames, f, nitems_read(0) + f.start);
        add_item_tag(0, nitems_written(0) + slot * d_bits, d_key, info, alias_pmt());
        d_frames++;
        d_last_cfo = f.cfo;
        d_last_noise = d_noise[k];
    }

    core::fused_receiver_config d_config;
    const std::string d_backend_request;
    const int d_device;
    const bool d_int8;
    const float d_int8_scale;
    std::atomic<double> d_threshold; // set_threshold() from another thread
    const std::size_t d_len, d_margin, d_max_input, d_bits;
    const pmt::pmt_t d_key, d_rx_time;
    mutable std::mutex d_mutex; // d_engine and d_config: set_detector() against work
    std::unique_ptr<core::stream_receiver_engine> d_engine;
    std::vector<core::synced_frame> d_found;
    std::vector<float> d_llr, d_noise;
    std::vector<const gr_complex*> d_in;
    std::uint64_t d_frames = 0, d_unusable = 0;
    double d_last_cfo = 0, d_last_noise = 0;
    rate_limited_log d_log{ d_logger };
    work_faults d_faults{ d_log };
    synced_frame_gate d_gate{ d_log };
    std::vector<tag_t> d_rx_time_tags;
};

stream_receiver::sptr stream_receiver::make(const std::string& preset,
                                            int streams,
                                            const std::string& modulation,
                                            int payload_symbols,
                                            int antennas,
                                            const core::detector_spec& detector,
                                            const std::string& backend,
                                            bool int8_output,
                                            float int8_scale,
                                            int device,
                                            const std::string& estimator,
                                            double threshold,
                                            int pilot_interval)
{
    const core::fused_receiver_config c =
        receiver_block_config("stream_receiver", preset, streams, modulation, payload_symbols,
                              antennas, detector, estimator, int8_scale, pilot_interval);
    mimo_ofdm_sync::check_threshold(threshold);
    return gnuradio::make_block_sptr<stream_receiver_impl>(c, backend, device, int8_output,
                                                           int8_scale, threshold);
}

} // namespace gpumimo
} // namespace gr
