/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A block's minimum output buffer on every output port, without a log line:
 * gr::block::set_min_output_buffer(long) logs "set_min_output_buffer on block N to M"
 * at info level for every block that calls it (24 such lines in a gpumimo_replay run);
 * the per-port overload it loops over is silent.
 */
#ifndef INCLUDED_GPUMIMO_MIN_OUTPUT_BUFFER_H
#define INCLUDED_GPUMIMO_MIN_OUTPUT_BUFFER_H

#include <gnuradio/block.h>

namespace gr {
namespace gpumimo {

inline void set_min_output_buffer_on_every_port(gr::block& block, long items)
{
    for (int port = 0; port < block.output_signature()->max_streams(); port++)
        block.set_min_output_buffer(port, items);
}

} // namespace gpumimo
} // namespace gr

#endif
