/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The frame synchroniser block: core::search_step over its input buffers in place,
 * carrier-offset correction, frame tags, and the drops that keep damage downstream out.
 */
#include "block_faults.h"

#include <gnuradio/gpumimo/core/frame/frame.h>
#include <gnuradio/gpumimo/core/frame/frame_receiver.h>
#include <gnuradio/gpumimo/mimo_ofdm_sync.h>
#include <gnuradio/io_signature.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <cmath>
#include <vector>

namespace gr {
namespace gpumimo {

class mimo_ofdm_sync_impl : public mimo_ofdm_sync
{
public:
    mimo_ofdm_sync_impl(const core::frame_format& format, int antennas, double threshold)
        : gr::block("mimo_ofdm_sync",
                    gr::io_signature::make(antennas, antennas, sizeof(gr_complex)),
                    gr::io_signature::make(antennas, antennas, sizeof(gr_complex))),
          d_format(format),
          d_antennas(antennas),
          d_threshold(threshold),
          d_frame_len(format.samples()),
          d_margin(core::search_margin(format)),
          d_window(core::search_window(format)),
          d_key(pmt::intern("frame_start")),
          d_rx_time(pmt::intern("rx_time")),
          d_corrector(format)
    {
        // A frame leaves whole; the scheduler gives the input buffer twice the output
        // multiple, more than frame + margin.
        set_output_multiple(int(d_frame_len));
        set_tag_propagation_policy(TPP_DONT);
    }

    void set_threshold(double threshold) override
    {
        check_threshold(threshold);
        d_threshold = threshold;
    }
    double threshold() const override { return d_threshold.load(); }
    std::uint64_t frames() const override { return d_frames; }
    std::uint64_t dropped_frames() const override { return d_dropped; }
    std::uint64_t work_failures() const override { return d_faults.count(); }
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
        std::size_t available = *std::min_element(ninput_items.begin(), ninput_items.end());
        std::size_t consumed = 0, produced = 0;
        std::vector<const gr_complex*> window(d_antennas);
        while (available - consumed >= d_frame_len + d_margin &&
               std::size_t(noutput_items) - produced >= d_frame_len) {
            const std::size_t n = std::min(available - consumed, d_window);
            // Searched in place (find_frame counts non-finite samples as zeros); the
            // frame's own samples are checked as they are corrected.
            for (int a = 0; a < d_antennas; a++)
                window[a] = static_cast<const gr_complex*>(input_items[a]) + consumed;
            try {
                const core::frame_search_step step =
                    core::search_step(d_format, window.data(), d_antennas, n, d_threshold.load());
                if (step.whole) {
                    const std::size_t start = consumed + step.sync.start;
                    if (!spans_gap(start) &&
                        emit(input_items, output_items, start, produced, step.sync))
                        produced += d_frame_len;
                }
                consumed += std::max<std::size_t>(1, step.advance);
            } catch (...) { // the searched window is passed over; the stream goes on
                d_faults.caught("the " + std::to_string(n) + " samples searched are passed over");
                consumed += n;
            }
        }
        consume_each(int(consumed));
        return int(produced);
    }

private:
    // True, counted and logged, when the frame starting at input `start` (relative to
    // this call) spans a gap in time: an rx_time tag after its first sample, as a radio
    // overflow, a recording's capture boundary or a looping recording's restart gives.
    bool spans_gap(std::size_t start)
    {
        const uint64_t abs = nitems_read(0) + start;
        std::vector<tag_t> tags;
        get_tags_in_range(tags, 0, abs + 1, abs + d_frame_len, d_rx_time);
        if (tags.empty())
            return false;
        drop("spans a gap in time (an rx_time tag: a radio overflow, a capture "
             "boundary or a looping recording's restart)",
             start);
        return true;
    }

    // Counted always; logged at most every few seconds (a looping recording drops a
    // frame on every pass, many times a second).
    void drop(const char* why, std::size_t start)
    {
        d_dropped++;
        d_log.warn(why, [&] {
            return "dropped the frame at input sample " +
                   std::to_string(nitems_read(0) + start) + ": it " + why + " (" +
                   std::to_string(d_dropped) + " dropped so far)";
        });
    }

    // Corrects the frame at input `start` into the output at `produced` and tags it;
    // false (dropped, counted, nothing tagged) when it holds a non-finite sample.
    bool emit(const gr_vector_const_void_star& in,
              gr_vector_void_star& out,
              std::size_t start,
              std::size_t produced,
              const core::frame_sync_result& s)
    {
        std::vector<const gr_complex*> from(d_antennas);
        std::vector<gr_complex*> to(d_antennas);
        for (int a = 0; a < d_antennas; a++) {
            from[a] = static_cast<const gr_complex*>(in[a]) + start;
            to[a] = static_cast<gr_complex*>(out[a]) + produced;
        }
        const double cfo = d_corrector.correct(from.data(), d_antennas, s.cfo, to.data());
        if (!d_corrector.last_input_finite()) {
            drop("holds non-finite or out-of-range samples", start);
            return false; // what was written there is overwritten by the next frame
        }
        pmt::pmt_t info = pmt::make_dict();
        info = pmt::dict_add(info, pmt::intern("frame"), pmt::from_uint64(d_frames));
        info = pmt::dict_add(info, pmt::intern("cfo"), pmt::from_double(cfo));
        info = pmt::dict_add(info, pmt::intern("metric"), pmt::from_double(s.metric));
        info = pmt::dict_add(info, pmt::intern("offset"),
                             pmt::from_uint64(nitems_read(0) + start));
        for (int a = 0; a < d_antennas; a++)
            add_item_tag(a, nitems_written(a) + produced, d_key, info, alias_pmt());
        d_frames++;
        d_last_cfo = cfo;
        return true;
    }

    const core::frame_format d_format;
    const int d_antennas;
    std::atomic<double> d_threshold; // set_threshold() from another thread
    const std::size_t d_frame_len, d_margin, d_window;
    const pmt::pmt_t d_key, d_rx_time;
    core::frame_corrector d_corrector;
    std::uint64_t d_frames = 0, d_dropped = 0;
    double d_last_cfo = 0;
    rate_limited_log d_log{ d_logger };
    work_faults d_faults{ d_log };
};

mimo_ofdm_sync::sptr mimo_ofdm_sync::make(const std::string& preset,
                                          int streams,
                                          const std::string& modulation,
                                          int payload_symbols,
                                          int antennas,
                                          double threshold)
{
    const core::frame_format f =
        core::make_frame_format(preset, streams, modulation, payload_symbols);
    if (antennas < 1 || antennas > 16)
        throw std::invalid_argument("mimo_ofdm_sync: antennas must be 1..16");
    check_threshold(threshold);
    return gnuradio::make_block_sptr<mimo_ofdm_sync_impl>(f, antennas, threshold);
}

void mimo_ofdm_sync::check_threshold(double threshold)
{
    if (!(threshold >= 0 && threshold <= 1))
        throw std::invalid_argument(
            "mimo_ofdm_sync: threshold must be in (0, 1], or 0 for automatic");
}

} // namespace gpumimo
} // namespace gr
