/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What mimo_ofdm_sync and stream_receiver do with each frame their synchroniser found:
 * the drops that keep damage downstream out, and the frame_start tag's value.
 */
#ifndef INCLUDED_GPUMIMO_SYNCED_FRAME_GATE_H
#define INCLUDED_GPUMIMO_SYNCED_FRAME_GATE_H

#include "block_faults.h"

#include <gnuradio/gpumimo/core/frame/frame_sync_engine.h>
#include <gnuradio/tags.h>
#include <pmt/pmt.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {

/*! Passes a found frame on, or drops it (counted; logged at most every few seconds: a
 *  looping recording drops a frame on every pass, many times a second) when one of its
 *  samples was unusable or it spans a gap in time: an rx_time tag after its first
 *  sample, as a radio overflow, a recording's capture boundary or a looping
 *  recording's restart gives. */
class synced_frame_gate
{
public:
    explicit synced_frame_gate(rate_limited_log& log) : d_log(log) {}

    /*! f: a frame of the call whose first input sample is stream sample `first_read`;
     *  rx_time: that call's rx_time tags (absolute offsets); len: a frame's samples. */
    bool pass(const core::synced_frame& f,
              std::uint64_t first_read,
              std::size_t len,
              const std::vector<gr::tag_t>& rx_time)
    {
        const std::uint64_t start = first_read + f.start;
        for (const gr::tag_t& t : rx_time)
            if (t.offset > start && t.offset < start + len)
                return drop(start,
                            "spans a gap in time (an rx_time tag: a radio overflow, a capture "
                            "boundary or a looping recording's restart)");
        if (!f.usable) {
            d_damaged++;
            return drop(start, "holds non-finite or out-of-range samples");
        }
        return true;
    }
    std::uint64_t dropped() const { return d_dropped; }
    /*! Of those, the frames dropped for an unusable sample. */
    std::uint64_t damaged() const { return d_damaged; }

private:
    bool drop(std::uint64_t start, const char* why)
    {
        d_dropped++;
        d_log.warn(why, [&] {
            return "dropped the frame at input sample " + std::to_string(start) + ": it " +
                   why + " (" + std::to_string(d_dropped) + " dropped so far)";
        });
        return false;
    }

    rate_limited_log& d_log;
    std::uint64_t d_dropped = 0, d_damaged = 0;
};

/*! The frame_start tag's value: frame (count from 0), cfo (cycles per sample), metric,
 *  offset (input sample of the frame's start). */
inline pmt::pmt_t frame_start_info(std::uint64_t frame, const core::synced_frame& f, std::uint64_t offset)
{
    pmt::pmt_t info = pmt::make_dict();
    info = pmt::dict_add(info, pmt::intern("frame"), pmt::from_uint64(frame));
    info = pmt::dict_add(info, pmt::intern("cfo"), pmt::from_double(f.cfo));
    info = pmt::dict_add(info, pmt::intern("metric"), pmt::from_double(f.metric));
    info = pmt::dict_add(info, pmt::intern("offset"), pmt::from_uint64(offset));
    return info;
}

} // namespace gpumimo
} // namespace gr

#endif
