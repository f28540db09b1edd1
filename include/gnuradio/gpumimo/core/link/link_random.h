/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency. Compiled by both
 * the host compiler and nvcc: the one place that says which Philox counter each of the
 * link simulator's random numbers comes from.
 */
#ifndef INCLUDED_GPUMIMO_CORE_LINK_RANDOM_H
#define INCLUDED_GPUMIMO_CORE_LINK_RANDOM_H

#include <gnuradio/gpumimo/core/philox.h>

#include <cstdint>

namespace gr {
namespace gpumimo {
namespace core {

/*! The random numbers' purposes (Philox counter word 3). */
enum class link_draw : std::uint32_t { bits = 0, channel = 1, noise = 2, taps = 3, interleaver = 4 };

/*! Four words for draw `index` of a purpose, for a frame of an SNR point: counter
 *  (index, frame low word, point, purpose | frame high word << 8), key = seed. */
GPUMIMO_HOST_DEVICE inline philox_words link_words(std::uint64_t seed,
                                                   link_draw purpose,
                                                   std::uint32_t index,
                                                   std::uint32_t point,
                                                   std::uint64_t frame)
{
    return philox4x32_10(index,
                         std::uint32_t(frame),
                         point,
                         std::uint32_t(purpose) | (std::uint32_t(frame >> 32) << 8),
                         seed);
}

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
