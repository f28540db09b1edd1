/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUMIMO_FRAME_CLOCK_H
#define INCLUDED_GPUMIMO_FRAME_CLOCK_H

#include <gnuradio/gpumimo/api.h>
#include <gnuradio/sync_block.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gr {
namespace gpumimo {

/*!
 * \brief Notes when each whole frame has passed a point of a flowgraph. A sink of items
 * of `itemsize` bytes, `items_per_frame` a frame: whenever the items it has read reach
 * a multiple of items_per_frame, the steady clock's time is noted for that frame. Two
 * of them, one on a source paced at the radio's rate and one on the receiver's LLRs,
 * give each frame's latency (gpumimo_rx_rate --latency). A time is taken when work()
 * runs, so the frames of one burst share it. The first `capacity` frames are timed
 * (the room allocated at construction); later ones are only counted.
 * \ingroup gpumimo
 */
class GPUMIMO_API frame_clock : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<frame_clock> sptr;
    /*! std::invalid_argument for an itemsize, items_per_frame or capacity of 0, or a
     *  capacity above 2^26 frames. */
    static sptr make(std::size_t itemsize, std::uint64_t items_per_frame, std::size_t capacity = 65536);

    /*! Whole frames read so far. */
    virtual std::uint64_t frames() const = 0;
    /*! The times of the first min(frames(), capacity) frames, frame k at index k, in
     *  nanoseconds of now()'s clock; safe to call while the flowgraph runs. */
    virtual std::vector<std::int64_t> times() const = 0;
    /*! The clock the times are on (steady, nanoseconds). */
    static std::int64_t now();
};

} // namespace gpumimo
} // namespace gr

#endif
