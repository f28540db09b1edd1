/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * frame_clock: a time per whole frame read (include/gnuradio/gpumimo/frame_clock.h).
 */
#include <gnuradio/gpumimo/frame_clock.h>
#include <gnuradio/io_signature.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpumimo {

std::int64_t frame_clock::now()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

class frame_clock_impl : public frame_clock
{
public:
    frame_clock_impl(std::size_t itemsize, std::uint64_t items_per_frame, std::size_t capacity)
        : gr::sync_block("frame_clock",
                         gr::io_signature::make(1, 1, int(itemsize)),
                         gr::io_signature::make(0, 0, 0)),
          d_every(items_per_frame),
          d_times(capacity)
    {
    }

    std::uint64_t frames() const override { return d_frames.load(std::memory_order_relaxed); }

    std::vector<std::int64_t> times() const override
    {
        // Entries below d_timed are written once, before the count that shows them.
        const std::uint64_t n = d_timed.load(std::memory_order_acquire);
        return std::vector<std::int64_t>(d_times.begin(), d_times.begin() + std::ptrdiff_t(n));
    }

    int work(int noutput_items, gr_vector_const_void_star&, gr_vector_void_star&) override
    {
        const std::uint64_t before = d_items / d_every;
        d_items += std::uint64_t(noutput_items);
        const std::uint64_t after = d_items / d_every;
        if (after > before) {
            const std::int64_t t = now();
            std::uint64_t timed = d_timed.load(std::memory_order_relaxed);
            for (std::uint64_t k = before; k < after && timed < d_times.size(); k++)
                d_times[timed++] = t;
            d_timed.store(timed, std::memory_order_release);
            d_frames.store(after, std::memory_order_relaxed);
        }
        return noutput_items;
    }

private:
    const std::uint64_t d_every;
    std::uint64_t d_items = 0;
    std::vector<std::int64_t> d_times;
    std::atomic<std::uint64_t> d_timed{ 0 }, d_frames{ 0 };
};

frame_clock::sptr frame_clock::make(std::size_t itemsize, std::uint64_t items_per_frame, std::size_t capacity)
{
    if (itemsize == 0 || items_per_frame == 0)
        throw std::invalid_argument("frame_clock: itemsize and items_per_frame must be >= 1");
    if (capacity == 0 || capacity > (std::size_t(1) << 26))
        throw std::invalid_argument("frame_clock: capacity must be 1 to 2^26 frames, not " +
                                    std::to_string(capacity));
    return gnuradio::make_block_sptr<frame_clock_impl>(itemsize, items_per_frame, capacity);
}

} // namespace gpumimo
} // namespace gr
