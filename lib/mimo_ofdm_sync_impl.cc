/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The frame synchroniser block: a core::frame_sync_engine (search and carrier-offset
 * correction, CPU or GPU) over its input buffers, frame tags, and the drops that keep
 * damage downstream out.
 */
#include "block_support/block_faults.h"
#include "block_support/device_stream_buffer.h"
#include "block_support/engine_logging.h"
#include "block_support/host_stand_in.h"
#include "block_support/stream_buffer_sizes.h"
#include "block_support/stream_buffer_pins.h"
#include "block_support/synced_frame_gate.h"

#include <gnuradio/buffer_double_mapped.h>
#include <gnuradio/gpumimo/core/device_bytes.h>
#include <gnuradio/gpumimo/core/frame/frame.h>
#include <gnuradio/gpumimo/core/frame/frame_receiver.h>
#include <gnuradio/gpumimo/core/frame/frame_sync_engine.h>
#include <gnuradio/gpumimo/mimo_ofdm_sync.h>
#include <gnuradio/io_signature.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <cmath>
#include <vector>

namespace gr {
namespace gpumimo {

class mimo_ofdm_sync_impl : public pinned_while_on_gpu<mimo_ofdm_sync>, public device_buffer_user
{
public:
    // Frames per call at most: enough to carry the scheduler's larger offers, few
    // enough that the GPU's frame buffers stay small.
    static constexpr std::size_t max_frames_per_call = 8;

    // engine: made by make() first, since the outputs' buffers depend on where it runs
    // (on the GPU: device-resident, for a GPU ofdm_fft).
    mimo_ofdm_sync_impl(const core::frame_format& format,
                        int antennas,
                        double threshold,
                        early_engine<core::frame_sync_engine>&& engine,
                        int device,
                        bool device_buffers)
        : gr::block("mimo_ofdm_sync",
                    gr::io_signature::make(antennas, antennas, sizeof(gr_complex)),
                    gr::io_signature::make(antennas, antennas, sizeof(gr_complex),
                                           engine.on_gpu() && device_buffers
                                               ? device_stream_buffer::type
                                               : gr::buffer_double_mapped::type)),
          d_device(device),
          d_format(format),
          d_antennas(antennas),
          d_threshold(threshold),
          d_frame_len(format.samples()),
          d_margin(core::search_margin(format)),
          d_max_input(max_input(format)),
          d_key(pmt::intern("frame_start")),
          d_rx_time(pmt::intern("rx_time")),
          d_found(max_frames_per_call),
          d_in(std::size_t(antennas)),
          d_out(std::size_t(antennas))
    {
        d_engine = adopt_engine(d_logger, std::move(engine));
        // A frame leaves whole; the scheduler gives the input buffer twice the output
        // multiple, more than frame + margin.
        set_output_multiple(int(d_frame_len));
        // Room for two calls' frames: the next block (ofdm_fft) takes several frames a
        // call while this one fills the other half (with GNU Radio's two frames, the GPU
        // chain's blocks took turns: gpumimo_rx_rate --chain, docs/performance.md).
        set_min_output_buffer_on_every_port(*this,
                                            long(2 * max_frames_per_call * d_frame_len));
        ask_upstream_for_items(*this, d_frame_len, d_max_input + d_frame_len);
        set_tag_propagation_policy(TPP_DONT); // also: the rate above is a buffer hint
    }

    // The most samples per antenna a call searches.
    static std::size_t max_input(const core::frame_format& format)
    {
        return core::search_window(format) + (max_frames_per_call - 1) * format.samples();
    }

    int buffer_device() const override { return d_device; }

    void set_threshold(double threshold) override
    {
        check_threshold(threshold);
        d_threshold = threshold;
    }
    double threshold() const override { return d_threshold.load(); }
    std::uint64_t frames() const override { return d_frames; }
    std::uint64_t dropped_frames() const override { return d_gate.dropped(); }
    std::uint64_t work_failures() const override { return d_faults.count(); }
    std::string backend() const override { return d_engine->backend(); }
    double last_cfo() const override { return d_last_cfo; }

    void forecast(int, gr_vector_int& ninput_items_required) override
    {
        for (auto& n : ninput_items_required)
            n = int(d_frame_len + d_margin);
    }

    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override
    {
        const std::size_t available =
            *std::min_element(ninput_items.begin(), ninput_items.end());
        const std::size_t n = std::min(available, d_max_input);
        const std::size_t room =
            std::min(std::size_t(noutput_items) / d_frame_len, max_frames_per_call);
        if (n < d_frame_len + d_margin || room == 0) {
            consume_each(0);
            return 0;
        }
        // Searched in place on the CPU, copied once to the GPU; the frames are written
        // straight into the output, the damaged ones closed over below.
        for (int a = 0; a < d_antennas; a++) {
            d_in[a] = static_cast<const gr_complex*>(input_items[a]);
            d_out[a] = static_cast<gr_complex*>(output_items[a]);
        }
        const bool on_device = writes_device(*this, 0);
        core::sync_call_result r;
        try {
            r = search(n, room, on_device);
        } catch (...) { // the searched samples are passed over; the stream goes on
            d_faults.caught("the " + std::to_string(n) + " samples searched are passed over");
            consume_each(int(n));
            return 0;
        }
        std::size_t produced = 0;
        d_rx_time_tags.clear();
        get_tags_in_range(d_rx_time_tags, 0, nitems_read(0), nitems_read(0) + n, d_rx_time);
        for (std::size_t k = 0; k < r.frames; k++) {
            const core::synced_frame& f = d_found[k];
            if (!d_gate.pass(f, nitems_read(0), d_frame_len, d_rx_time_tags))
                continue;
            if (produced != k) // whole frames, so the two never overlap
                for (int a = 0; a < d_antennas; a++) {
                    gr_complex* to = d_out[a] + produced * d_frame_len;
                    const gr_complex* from = d_out[a] + k * d_frame_len;
                    if (on_device)
                        core::copy_bytes(to, from, d_frame_len * sizeof(gr_complex));
                    else
                        std::memcpy(to, from, d_frame_len * sizeof(gr_complex));
                }
            tag(f, produced);
            produced++;
        }
        consume_each(int(r.consumed));
        return int(produced * d_frame_len);
    }

private:
    // The engine's search of n samples for up to `room` frames into d_out; through host
    // memory where the outputs are on the device and the engine on the CPU (it fell
    // back after a GPU failure).
    core::sync_call_result search(std::size_t n, std::size_t room, bool on_device)
    {
        if (!on_device || std::string(d_engine->backend()) == "cuda")
            return d_engine->search(d_in.data(), nitems_read(0), n, room, d_threshold.load(),
                                    d_out.data(), d_found.data());
        d_staged_out.resize(std::size_t(d_antennas));
        d_stand_in.begin();
        for (int a = 0; a < d_antennas; a++)
            d_staged_out[std::size_t(a)] = d_stand_in.output(std::size_t(a), d_out[a], room * d_frame_len);
        const core::sync_call_result r = d_engine->search(
            d_in.data(), nitems_read(0), n, room, d_threshold.load(), d_staged_out.data(), d_found.data());
        d_stand_in.write_back();
        return r;
    }

    // Tags the frame at output frame `slot` of this call.
    void tag(const core::synced_frame& f, std::size_t slot)
    {
        const pmt::pmt_t info = frame_start_info(d_frames, f, nitems_read(0) + f.start);
        for (int a = 0; a < d_antennas; a++)
            add_item_tag(a, nitems_written(a) + slot * d_frame_len, d_key, info, alias_pmt());
        d_frames++;
        d_last_cfo = f.cfo;
    }

    const int d_device; // where device-resident outputs lie
    const core::frame_format d_format;
    const int d_antennas;
    std::atomic<double> d_threshold; // set_threshold() from another thread
    const std::size_t d_frame_len, d_margin, d_max_input;
    const pmt::pmt_t d_key, d_rx_time;
    std::unique_ptr<core::frame_sync_engine> d_engine;
    std::vector<core::synced_frame> d_found;
    std::vector<const gr_complex*> d_in;
    std::vector<gr_complex*> d_out;
    host_stand_in d_stand_in;                // device outputs, engine on the CPU
    std::vector<gr_complex*> d_staged_out;   // [antenna], through d_stand_in
    std::uint64_t d_frames = 0;
    double d_last_cfo = 0;
    rate_limited_log d_log{ d_logger };
    work_faults d_faults{ d_log };
    synced_frame_gate d_gate{ d_log };
    std::vector<tag_t> d_rx_time_tags;
};

mimo_ofdm_sync::sptr mimo_ofdm_sync::make(const std::string& preset,
                                          int streams,
                                          const std::string& modulation,
                                          int payload_symbols,
                                          int antennas,
                                          double threshold,
                                          const std::string& backend,
                                          int device,
                                          bool device_buffers,
                                          int pilot_interval)
{
    const core::frame_format f =
        core::make_frame_format(preset, streams, modulation, payload_symbols, pilot_interval);
    if (antennas < 1 || antennas > 16)
        throw std::invalid_argument("mimo_ofdm_sync: antennas must be 1..16");
    check_threshold(threshold);
    auto engine = make_early_engine([&](std::string* why) {
        return core::make_frame_sync_engine(f, antennas, mimo_ofdm_sync_impl::max_input(f),
                                            mimo_ofdm_sync_impl::max_frames_per_call, backend,
                                            device, why);
    });
    return gnuradio::make_block_sptr<mimo_ofdm_sync_impl>(f, antennas, threshold, std::move(engine),
                                                          device, device_buffers);
}

void mimo_ofdm_sync::check_threshold(double threshold)
{
    if (!(threshold >= 0 && threshold <= 1))
        throw std::invalid_argument(
            "mimo_ofdm_sync: threshold must be in (0, 1], or 0 for automatic");
}

} // namespace gpumimo
} // namespace gr
