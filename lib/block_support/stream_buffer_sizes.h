/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Buffer sizes a block asks of GNU Radio, for itself and for the block before it.
 *
 * A block's minimum output buffer on every output port, without a log line:
 * gr::block::set_min_output_buffer(long) logs "set_min_output_buffer on block N to M"
 * at info level for every block that calls it (24 such lines in a gpumimo_replay run);
 * the per-port overload it loops over is silent.
 *
 * The input buffer a receiver needs for a batch of frames a call, without the user
 * setting the upstream block's min_output_buffer: GNU Radio sizes a block's output
 * buffer to at least 2 * (decimation * output_multiple + history) of every block reading
 * it (flat_flowgraph::allocate_block_detail), decimation being 1 / relative_rate. With a
 * receiver's true rate that is about two frames, one frame a call, and each GPU block
 * after it carried one frame (docs/performance.md). The rate is used for nothing else in
 * a block whose tag propagation is TPP_DONT (the scheduler of a general block reads
 * forecast(), not the rate), so the receivers state a lower one as the hint.
 */
#ifndef INCLUDED_GPUMIMO_STREAM_BUFFER_SIZES_H
#define INCLUDED_GPUMIMO_STREAM_BUFFER_SIZES_H

#include <gnuradio/block.h>

#include <cstdint>
#include <numeric>

namespace gr {
namespace gpumimo {

inline void set_min_output_buffer_on_every_port(gr::block& block, long items)
{
    for (int port = 0; port < block.output_signature()->max_streams(); port++)
        block.set_min_output_buffer(port, items);
}

// GNU Radio gives `block`'s input buffers at least twice `items` (a call's worth):
// relative_rate = output_multiple / items. Call after set_output_multiple(), with the
// tag propagation policy TPP_DONT.
inline void ask_upstream_for_items(gr::block& block, std::size_t output_multiple, std::size_t items)
{
    const std::size_t common = std::gcd(output_multiple, items);
    block.set_relative_rate(std::uint64_t(output_multiple / common), std::uint64_t(items / common));
}

} // namespace gpumimo
} // namespace gr

#endif
