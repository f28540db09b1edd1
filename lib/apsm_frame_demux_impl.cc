/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * mimo_ofdm_tx's frames, as the OFDM FFT gives them, cut into the APSM detector's
 * training and data REs (a thin wrapper over core::apsm_frame_splitter): whole frames
 * only, aligned on the frame_start tags, a training tag where a training is due.
 */
#include "block_support/block_faults.h"

#include <gnuradio/gpumimo/apsm_frame_demux.h>
#include <gnuradio/gpumimo/core/apsm/apsm_frame.h>
#include <gnuradio/io_signature.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <vector>

namespace gr {
namespace gpumimo {

class apsm_frame_demux_impl : public apsm_frame_demux
{
public:
    apsm_frame_demux_impl(const core::frame_format& frame,
                          int antennas,
                          int train_every,
                          const std::string& training_tag)
        : gr::block("apsm_frame_demux",
                    gr::io_signature::make(antennas, antennas,
                                           sizeof(gr_complex) * std::size_t(frame.num.used_carriers)),
                    gr::io_signature::make(antennas, antennas, sizeof(gr_complex))),
          d_splitter(frame, antennas),
          d_layout(d_splitter.layout()),
          d_antennas(antennas),
          d_used(std::size_t(frame.num.used_carriers)),
          d_train_every(std::uint64_t(train_every)),
          d_frame_key(pmt::intern("frame_start")),
          d_training_key(pmt::intern(training_tag)),
          d_train_port(pmt::intern("train"))
    {
        set_tag_propagation_policy(TPP_DONT);
        set_output_multiple(int(d_layout.res_out()));
        message_port_register_in(d_train_port);
        set_msg_handler(d_train_port, [this](const pmt::pmt_t&) { d_train_requested = true; });
    }

    int training_len() const override { return int(d_layout.training_len()); }
    int data_len() const override { return int(d_layout.data_len()); }
    std::uint64_t frames() const override { return d_frames; }
    std::uint64_t trainings_tagged() const override { return d_trainings; }
    std::uint64_t dropped_symbols() const override { return d_dropped; }
    std::uint64_t damaged_frames() const override { return d_damaged; }

    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override
    {
        const std::size_t frames = std::max<std::size_t>(1, std::size_t(noutput_items) / d_layout.res_out());
        std::fill(ninput_items_required.begin(), ninput_items_required.end(),
                  int(frames * d_layout.symbols_in()));
    }

    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override
    {
        const std::size_t avail = std::size_t(*std::min_element(ninput_items.begin(), ninput_items.end()));
        const std::size_t S = d_layout.symbols_in(), R = d_layout.res_out();
        const std::uint64_t first = nitems_read(0);
        get_tags_in_range(d_tags, 0, first, first + avail, d_frame_key);
        std::vector<std::size_t>& starts = d_starts; // frame_start offsets, ascending
        starts.clear();
        for (const tag_t& t : d_tags)
            starts.push_back(std::size_t(t.offset - first));
        std::sort(starts.begin(), starts.end());

        std::size_t pos = 0, produced = 0;
        while (produced + R <= std::size_t(noutput_items)) {
            // A frame starts at a tag, or untagged right after the last whole frame (an
            // untagged stream goes back to back); after a drop only at a tag.
            auto next = std::lower_bound(starts.begin(), starts.end(), pos);
            const bool tagged_here = next != starts.end() && *next == pos;
            if (!tagged_here && !d_back_to_back) {
                const std::size_t to = next != starts.end() ? *next : avail;
                if (to > pos)
                    drop(to - pos, "before a frame_start tag");
                pos = to;
                if (next == starts.end())
                    break;
                continue;
            }
            if (pos + S > avail)
                break;
            // A tag inside the frame: it was cut short (the synchroniser moved on).
            auto inside = std::upper_bound(starts.begin(), starts.end(), pos);
            if (inside != starts.end() && *inside < pos + S) {
                drop(*inside - pos, "of a frame cut short by the next frame_start tag");
                pos = *inside;
                continue;
            }
            emit_frame(input_items, output_items, pos, produced);
            pos += S;
            produced += R;
        }
        consume_each(int(pos));
        return int(produced);
    }

private:
    void drop(std::size_t symbols, const char* where)
    {
        d_dropped += symbols;
        d_back_to_back = false; // the tags lead from here on
        d_log.warn("dropped", [&] {
            return std::to_string(symbols) + " OFDM symbols dropped " + where + " (" +
                   std::to_string(d_dropped) + " in all)";
        });
    }

    void emit_frame(const gr_vector_const_void_star& in,
                    gr_vector_void_star& out,
                    std::size_t pos,
                    std::size_t produced)
    {
        for (int a = 0; a < d_antennas; a++) {
            d_frames_in[std::size_t(a)] = static_cast<const gr_complex*>(in[std::size_t(a)]) + pos * d_used;
            d_res_out[std::size_t(a)] = static_cast<gr_complex*>(out[std::size_t(a)]) + produced;
        }
        const bool due = d_frames == 0 || (d_train_every > 0 && d_frames % d_train_every == 0);
        const bool train = due || d_train_requested.exchange(false) || d_training_pending;
        // A training frame is the reference the later frames' phases are taken against.
        if (!d_splitter.split(d_frames_in.data(), d_res_out.data(), train)) {
            // NaN or Inf in its pilots: it goes out as NaN REs (erasures at the
            // detector), and a training due on it waits for the next frame.
            d_damaged++;
            d_training_pending = train;
            d_log.warn("damaged frame", [&] {
                return "frame " + std::to_string(d_frames) + " has NaN or Inf in its pilot "
                       "symbols: its REs leave as NaN" + (train ? ", its training moves to "
                       "the next frame" : "") + " (" + std::to_string(d_damaged) + " in all)";
            });
        } else if (train) {
            add_item_tag(0, nitems_written(0) + produced, d_training_key, pmt::from_uint64(d_frames));
            d_trainings++;
            d_training_pending = false;
        }
        d_frames++;
        d_back_to_back = true;
    }

    core::apsm_frame_splitter d_splitter;
    const core::apsm_frame_layout& d_layout;
    const int d_antennas;
    const std::size_t d_used;
    const std::uint64_t d_train_every;
    std::vector<const gr_complex*> d_frames_in = std::vector<const gr_complex*>(std::size_t(d_antennas));
    std::vector<gr_complex*> d_res_out = std::vector<gr_complex*>(std::size_t(d_antennas));
    const pmt::pmt_t d_frame_key, d_training_key, d_train_port;
    std::atomic<bool> d_train_requested{ false };
    std::vector<tag_t> d_tags;        // scratch: a call's frame_start tags
    std::vector<std::size_t> d_starts; // and their offsets in the call
    // Whether a frame may start untagged where the last ended: from the start and after
    // each whole frame; not after a drop, where only a tag starts the next.
    bool d_back_to_back = true;
    bool d_training_pending = false; // a training was due on a damaged frame
    std::uint64_t d_frames = 0, d_trainings = 0, d_dropped = 0, d_damaged = 0;
    rate_limited_log d_log{ d_logger };
};

apsm_frame_demux::sptr apsm_frame_demux::make(const std::string& preset,
                                              int users,
                                              const std::string& modulation,
                                              int payload_symbols,
                                              int antennas,
                                              int train_every,
                                              const std::string& training_tag)
{
    const core::frame_format f = core::make_frame_format(preset, users, modulation, payload_symbols);
    if (antennas < 1 || antennas > 64)
        throw std::invalid_argument("apsm_frame_demux: antennas must be 1 to 64");
    if (train_every < 0)
        throw std::invalid_argument("apsm_frame_demux: train_every must be >= 0 (0: the first frame only)");
    if (training_tag.empty())
        throw std::invalid_argument("apsm_frame_demux: training_tag must not be empty");
    return gnuradio::make_block_sptr<apsm_frame_demux_impl>(f, antennas, train_every, training_tag);
}

} // namespace gpumimo
} // namespace gr
