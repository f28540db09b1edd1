/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The channel estimation block: frame bookkeeping on the "frame_start" tags around a
 * core::chanest_engine (the frames found in a call estimated together: their estimates
 * and their payload turned back by the tracking pilots' common phase, on the GPU one
 * round trip for them all), and the channel-estimate tag for the detector. Frames with
 * pilot blocks (pilot_interval) leave their payload symbols only, each with an estimate
 * of its own (interpolated between the blocks): a tag and a record per symbol.
 */
#include "block_support/block_faults.h"
#include "block_support/device_stream_buffer.h"
#include "block_support/engine_logging.h"
#include "block_support/host_stand_in.h"
#include "block_support/stream_buffer_sizes.h"
#include "block_support/stream_buffer_pins.h"

#include <gnuradio/gpumimo/core/detect/detector.h>
#include <gnuradio/gpumimo/core/frame/estimation/chanest_engine.h>
#include <gnuradio/gpumimo/core/frame/estimate_items.h>
#include <gnuradio/gpumimo/core/frame/estimation/equalizer.h>
#include <gnuradio/gpumimo/core/frame/frame.h>
#include <gnuradio/gpumimo/core/frame/frame_receiver.h>
#include <gnuradio/gpumimo/core/frame/estimation/phase_tracker.h>
#include <gnuradio/gpumimo/mimo_chanest.h>
#include <gnuradio/buffer_double_mapped.h>
#include <gnuradio/io_signature.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {

class mimo_chanest_impl : public pinned_while_on_gpu<mimo_chanest>, public device_buffer_user
{
public:
    // Frames estimated in one call at most: on the GPU one round trip for them all
    // instead of one per frame.
    static constexpr std::size_t kFramesPerEstimate = 16;

    // engine: made by make() first, since the outputs' buffers depend on where it runs.
    mimo_chanest_impl(const core::frame_format& format,
                      int antennas,
                      bool equalized_outputs,
                      early_engine<core::chanest_engine>&& engine,
                      int device,
                      bool device_buffers)
        : gr::block("mimo_chanest",
                    input_signature(format, antennas, engine.on_gpu() && device_buffers),
                    output_signature(format, antennas, equalized_outputs,
                                     device_buffers && device_outputs(engine, equalized_outputs))),
          d_device(device),
          d_format(format),
          d_antennas(antennas),
          d_carriers(std::size_t(format.num.used_carriers)),
          d_symbols(std::size_t(format.symbols())),
          d_payload(std::size_t(format.payload_symbols)),
          d_frame_key(pmt::intern("frame_start")),
          d_est_key(pmt::intern("mimo_chan_est")),
          d_data(core::data_carriers(format.num)),
          d_equalized(equalized_outputs),
          d_items(core::estimate_items_of(format, antennas))
    {
        d_engine = adopt_engine(d_logger, std::move(engine));
        set_output_multiple(format.payload_symbols);
        // Room for two batches of frames' payload: mimo_detector holds what it reads (up
        // to 64 symbols) while it detects, and this block's next call still finds room
        // for a whole batch (with room for one batch, calls held 8 frames on the H200
        // host, and the chain ran 41-43 Msample/s per channel against 52.7 with two).
        set_min_output_buffer_on_every_port(
            *this, long(2 * kFramesPerEstimate * format.payload_symbols));
        d_in.resize(std::size_t(antennas));
        d_payload_out.resize(std::size_t(antennas));
        d_eq_rx.resize(std::size_t(antennas) * d_data.size());
        d_eq_in.resize(std::size_t(antennas));
        for (int r = 0; r < antennas; r++)
            d_eq_in[std::size_t(r)] = d_eq_rx.data() + std::size_t(r) * d_data.size();
        d_eq_out.resize(std::size_t(format.streams));
        d_eq_scratch.resize(d_data.size());
        // Frames tracked in time: each symbol's record, where the block needs them on
        // the host (the tags' or the equaliser's estimates).
        if (d_items.per_symbol)
            d_host_records.resize(d_engine->max_frames() * d_payload * d_items.item_bytes());
        set_tag_propagation_policy(TPP_DONT);
    }

    // The payload stays on the GPU (device-resident stream buffers) where the engine
    // runs there, unless the block equalises it on the CPU as well.
    static bool device_outputs(const early_engine<core::chanest_engine>& engine, bool equalized_outputs)
    {
        return engine.on_gpu() && !equalized_outputs;
    }

    // The antennas' carriers; on the device (a device-resident stream buffer from a GPU
    // ofdm_fft) where the engine runs there.
    static gr::io_signature::sptr input_signature(const core::frame_format& format,
                                                  int antennas,
                                                  bool on_device)
    {
        return gr::io_signature::make(
            antennas, antennas, int(sizeof(gr_complex)) * format.num.used_carriers,
            on_device ? device_stream_buffer::type : gr::buffer_double_mapped::type);
    }

    static gr::io_signature::sptr output_signature(const core::frame_format& format,
                                                   int antennas,
                                                   bool equalized_outputs,
                                                   bool on_device)
    {
        // The antennas' payload carriers (every used carrier), then optionally one
        // equalised output per stream (its data carriers), or else optionally the
        // estimates as a stream (core::estimate_items) beside the payload.
        std::vector<int> sizes(std::size_t(antennas),
                               int(sizeof(gr_complex)) * format.num.used_carriers);
        if (equalized_outputs)
            sizes.insert(sizes.end(), std::size_t(format.streams),
                         int(sizeof(gr_complex)) * format.data_carrier_count());
        else
            sizes.push_back(int(core::estimate_items_of(format, antennas).item_bytes()));
        gr_vector_buffer_type types;
        for (std::size_t i = 0; i < sizes.size(); i++)
            types.push_back(on_device ? device_stream_buffer::type : gr::buffer_double_mapped::type);
        return gr::io_signature::makev(antennas, int(sizes.size()), sizes, types);
    }

    int buffer_device() const override { return d_device; }

    std::uint64_t frames() const override { return d_frames; }
    std::uint64_t dropped_frames() const override { return d_dropped; }
    std::string backend() const override { return d_engine->backend(); }
    std::uint64_t work_failures() const override { return d_faults.count(); }
    double last_noise_var() const override { return d_last_noise; }

    void forecast(int, gr_vector_int& ninput_items_required) override
    {
        for (auto& n : ninput_items_required)
            n = int(d_symbols);
    }

    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override
    {
        const std::size_t available =
            *std::min_element(ninput_items.begin(), ninput_items.end());
        const std::size_t payload = d_payload;
        std::size_t consumed = 0, produced = 0;
        bool more = true;
        while (more) {
            // The next whole frames, as many as the engine takes in one call and
            // the output has room for: they are estimated together (on the GPU one round
            // trip for them all).
            d_batch.clear();
            const std::size_t room = (std::size_t(noutput_items) - produced) / payload;
            while (true) {
                if (d_batch.size() == d_engine->max_frames() || d_batch.size() == room)
                    break; // batch full (room left: go on after it) or output full
                pmt::pmt_t info = pmt::PMT_NIL;
                const long tag = next_frame_tag(consumed, available, &info);
                if (tag < 0) { // nothing to align to: drop all
                    consumed = available;
                    more = false;
                    break;
                }
                consumed += std::size_t(tag);
                if (available - consumed < d_symbols) {
                    more = false;
                    break;
                }
                const long next = next_frame_tag(consumed + 1, consumed + d_symbols);
                if (next >= 0) { // cut short by the next frame
                    drop("was cut short by the next frame_start tag");
                    consumed += 1 + std::size_t(next);
                    continue;
                }
                d_batch.push_back({ consumed, info }); // the engine checks its values
                consumed += d_symbols;
            }
            if (d_batch.size() < d_engine->max_frames())
                more = false;
            if (d_batch.empty())
                break;
            std::size_t passed = 0;
            try {
                estimate(input_items, output_items, produced);
                for (; passed < d_batch.size(); passed++) {
                    pass(d_batch[passed], passed, d_estimates[passed], output_items, produced);
                    produced += payload;
                }
            } catch (...) { // the frames not passed are dropped, counted; the stream goes on
                d_faults.caught("the frames are dropped");
                d_dropped += d_batch.size() - passed;
            }
        }
        consume_each(int(consumed));
        return int(produced);
    }

private:
    // Whether the estimates go out as a stream (the optional output after the
    // antennas', where there are no equalised outputs), not in the tags.
    bool writes_records(const gr_vector_void_star& out) const
    {
        return !d_equalized && out.size() > std::size_t(d_antennas);
    }

    // Offset from `from` of the next frame_start tag on input 0 before `to`, or -1;
    // its value into *info when asked.
    long next_frame_tag(std::size_t from, std::size_t to, pmt::pmt_t* info = nullptr)
    {
        if (from >= to)
            return -1;
        std::vector<tag_t> tags;
        get_tags_in_range(tags, 0, nitems_read(0) + from, nitems_read(0) + to, d_frame_key);
        if (tags.empty())
            return -1;
        const auto first = std::min_element(
            tags.begin(), tags.end(), [](const tag_t& a, const tag_t& b) { return a.offset < b.offset; });
        if (info)
            *info = first->value;
        return long(first->offset - nitems_read(0) - from);
    }

    // A frame found in the input: where it starts (items from this call's first) and
    // its frame_start tag's value.
    struct found_frame {
        std::size_t at;
        pmt::pmt_t info;
    };

    // The batch's channel estimates into d_estimates, its payload (turned back by each
    // symbol's common phase) into the outputs from item `produced` on. Frames the engine
    // finds unusable (non-finite or out-of-range values) are dropped from the batch and
    // the rest estimated again, so that their payload lies back to back: rare, and the
    // engine checks on the device where the frames lie there.
    void estimate(const gr_vector_const_void_star& in, gr_vector_void_star& out, std::size_t produced)
    {
        while (!d_batch.empty()) {
            run_engine(in, out, produced);
            std::size_t kept = 0;
            for (std::size_t f = 0; f < d_batch.size(); f++) {
                if (d_usable[f])
                    d_batch[kept++] = d_batch[f];
                else
                    drop("holds non-finite or out-of-range carrier values");
            }
            if (kept == d_batch.size())
                return;
            d_batch.resize(kept);
        }
    }

    void run_engine(const gr_vector_const_void_star& in, gr_vector_void_star& out, std::size_t produced)
    {
        d_frame_at.resize(d_batch.size());
        d_usable.resize(d_batch.size());
        for (std::size_t f = 0; f < d_batch.size(); f++)
            d_frame_at[f] = d_batch[f].at;
        for (int r = 0; r < d_antennas; r++) {
            d_in[std::size_t(r)] = static_cast<const gr_complex*>(in[r]);
            d_payload_out[std::size_t(r)] = static_cast<gr_complex*>(out[r]) + produced * d_carriers;
        }
        core::chanest_batch b;
        b.in = d_in.data();
        b.frame_at = d_frame_at.data();
        b.frames = d_batch.size();
        b.payload = d_payload_out.data();
        b.usable = d_usable.data();
        // The estimates as records into the estimate output from item `produced` on,
        // written by the engine (on the device where that output lies there).
        if (writes_records(out)) {
            b.records = static_cast<unsigned char*>(out[d_antennas]) + produced * d_items.item_bytes();
            b.record_stride = d_items.item_bytes() * d_items.payload_symbols;
        } else if (d_items.per_symbol) { // into the host, for the tags or the equaliser
            b.records = d_host_records.data();
            b.record_stride = d_items.item_bytes() * d_items.payload_symbols;
        }
        // Buffers on the GPU and the engine on the CPU (it fell back after a GPU
        // failure): through host memory.
        d_stand_in.begin();
        if (cpu_engine_on_device_ports(*this, d_engine->backend())) {
            const std::size_t in_items = (d_batch.back().at + d_symbols) * d_carriers;
            const std::size_t out_items = d_batch.size() * d_payload * d_carriers;
            for (int r = 0; r < d_antennas; r++) {
                const std::size_t port = std::size_t(r);
                d_in[port] = d_stand_in.input(port, d_in[port], in_items);
                d_payload_out[port] = d_stand_in.output(port, d_payload_out[port], out_items);
            }
        }
        d_engine->estimate(b, d_estimates);
        d_stand_in.write_back();
    }

    // One estimated frame out (its payload already in the outputs at `produced`, batch
    // frame `slot`): tagged with its frame_start and its estimate (frames tracked in
    // time: each payload symbol with its own), and equalised where asked.
    void pass(const found_frame& found,
              std::size_t slot,
              const core::channel_estimate& e,
              gr_vector_void_star& out,
              std::size_t produced)
    {
        for (int r = 0; r < d_antennas; r++)
            add_item_tag(r, nitems_written(r) + produced, d_frame_key, found.info,
                         alias_pmt());
        const int streams = d_equalized ? int(out.size()) - d_antennas : 0;
        if (!d_items.per_symbol) {
            tag_estimate(e, e.noise_var, out, produced);
            if (streams > 0)
                equalize(e, out, produced, d_payload);
        } else {
            const std::size_t stride = d_items.item_bytes() * d_items.payload_symbols;
            for (std::size_t sym = 0; sym < d_payload; sym++) {
                // The symbol's estimate from its record in the host stage, where the tags
                // or the equaliser need it (no estimate output: the stream carries it).
                if (writes_records(out)) {
                    tag_estimate(e, e.noise_var, out, produced + sym);
                    continue;
                }
                core::read_estimate_record(d_items,
                                           d_host_records.data() + slot * stride + sym * d_items.item_bytes(),
                                           e.noise_var, d_symbol_estimate);
                tag_estimate(d_symbol_estimate, e.noise_var, out, produced + sym);
                if (streams > 0)
                    equalize(d_symbol_estimate, out, produced + sym, 1);
            }
        }
        for (int k = 0; k < streams; k++)
            add_item_tag(d_antennas + k, nitems_written(d_antennas + k) + produced, d_frame_key,
                         found.info, alias_pmt());
        d_frames++;
        d_last_noise = e.noise_var;
    }

    // The mimo_chan_est tag of the symbols from output item `at` on: H and the noise
    // per carrier in the tag, unless the estimate output carries them (then the tag
    // marks where the record starts).
    void tag_estimate(const core::channel_estimate& e, double noise_var, gr_vector_void_star& out, std::size_t at)
    {
        pmt::pmt_t est = pmt::make_dict();
        if (!writes_records(out)) {
            est = pmt::dict_add(est, pmt::intern("h"), pmt::init_c32vector(e.h.size(), e.h));
            est = pmt::dict_add(
                est, pmt::intern("noise_eff"), pmt::init_f32vector(e.noise_eff.size(), e.noise_eff));
        }
        est = pmt::dict_add(est, pmt::intern("noise_var"), pmt::from_double(noise_var));
        est = pmt::dict_add(est, pmt::intern("frame"), pmt::from_uint64(d_frames));
        add_item_tag(0, nitems_written(0) + at, d_est_key, est, alias_pmt());
    }

    // `symbols` payload symbols from output item `at` on equalised with estimate e into
    // the streams' outputs (past the antennas'): their data carriers only, what a
    // constellation shows.
    void equalize(const core::channel_estimate& e, gr_vector_void_star& out, std::size_t at, std::size_t symbols)
    {
        const int streams = int(out.size()) - d_antennas;
        core::data_carrier_estimate(d_data, e, d_eq_h, d_eq_noise);
        const std::size_t D = d_data.size();
        d_equalizer.set_channel(d_eq_h.data(), d_eq_noise.data(), d_antennas, d_format.streams,
                                int(D)); // the filters, once for the symbols
        for (std::size_t sym = at; sym < at + symbols; sym++) {
            for (int r = 0; r < d_antennas; r++)
                for (std::size_t d = 0; d < D; d++)
                    d_eq_rx[std::size_t(r) * D + d] =
                        static_cast<gr_complex*>(out[r])[sym * d_carriers + std::size_t(d_data[d])];
            for (int k = 0; k < d_format.streams; k++) // streams not connected: scratch
                d_eq_out[k] = k < streams ? static_cast<gr_complex*>(out[d_antennas + k]) + sym * D
                                          : d_eq_scratch.data();
            d_equalizer.apply(d_eq_in.data(), d_eq_out.data());
        }
    }

    bool drop(const char* why)
    {
        d_dropped++;
        d_log.warn("dropped frame", [&] {
            return std::string("dropped a frame that ") + why + " (" +
                   std::to_string(d_dropped) + " dropped so far)";
        });
        return false;
    }

    const int d_device;
    const core::frame_format d_format;
    const int d_antennas;
    const std::size_t d_carriers, d_symbols, d_payload;
    const pmt::pmt_t d_frame_key, d_est_key;
    std::unique_ptr<core::chanest_engine> d_engine;
    const std::vector<int> d_data;                            // data carriers (indices)
    const bool d_equalized;                                   // equalised outputs made
    const core::estimate_items d_items;                       // the estimate output's
    std::vector<found_frame> d_batch;                         // frames estimated together
    std::vector<core::channel_estimate> d_estimates;          // [batch frame], and more
    std::vector<std::size_t> d_frame_at;                      // [batch frame]: first symbol
    std::vector<const gr_complex*> d_in;                      // [antennas]: the inputs
    std::vector<gr_complex*> d_payload_out;                   // [antennas]: the batch's payload
    std::vector<unsigned char> d_usable;                      // [batch frame]
    host_stand_in d_stand_in;                                 // device buffers, CPU engine
    std::vector<gr_complex> d_eq_h, d_eq_rx;                  // data carriers' H, y
    std::vector<float> d_eq_noise;
    core::mmse_equalizer d_equalizer;                         // the frame's filters
    std::vector<const gr_complex*> d_eq_in;                   // [antennas]
    std::vector<gr_complex*> d_eq_out;                        // [streams]
    std::vector<gr_complex> d_eq_scratch;                     // [data carriers]
    std::vector<unsigned char> d_host_records;                // tracked frames: [frame][symbol][item]
    core::channel_estimate d_symbol_estimate;                 // a tracked symbol's
    std::uint64_t d_frames = 0, d_dropped = 0;
    double d_last_noise = 0;
    rate_limited_log d_log{ d_logger };
    work_faults d_faults{ d_log };
};

mimo_chanest::sptr mimo_chanest::make(const std::string& preset,
                                      int streams,
                                      const std::string& modulation,
                                      int payload_symbols,
                                      int antennas,
                                      const std::string& estimator,
                                      bool equalized_outputs,
                                      const std::string& backend,
                                      int device,
                                      bool device_buffers,
                                      int pilot_interval)
{
    const core::frame_format f =
        core::make_frame_format(preset, streams, modulation, payload_symbols, pilot_interval);
    if (antennas < f.streams || antennas > 16)
        throw std::invalid_argument("mimo_chanest: antennas must be from streams to 16");
    const core::channel_estimator method = core::parse_channel_estimator(estimator);
    auto engine = make_early_engine([&](std::string* why) {
        return core::make_chanest_engine(f, method, antennas, backend, device, why,
                                         mimo_chanest_impl::kFramesPerEstimate);
    });
    return gnuradio::make_block_sptr<mimo_chanest_impl>(f, antennas, equalized_outputs,
                                                          std::move(engine), device, device_buffers);
}

} // namespace gpumimo
} // namespace gr
