/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The cancel check the blocks set around their calls into the core (core/cancel.h):
 * GNU Radio's stop() interrupts each block's thread (a boost::thread) and then waits for
 * its work() to return, so a long CPU search polls whether that happened and ends.
 */
#ifndef INCLUDED_GPUMIMO_LIB_FLOWGRAPH_STOP_H
#define INCLUDED_GPUMIMO_LIB_FLOWGRAPH_STOP_H

#include <gnuradio/gpumimo/core/cancel.h>

#include <boost/thread/thread.hpp>

namespace gr {
namespace gpumimo {

/*! Whether the flowgraph asked the calling block thread to stop. */
inline bool flowgraph_stopping() { return boost::this_thread::interruption_requested(); }

} // namespace gpumimo
} // namespace gr

#endif
