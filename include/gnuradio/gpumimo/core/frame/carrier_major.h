/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency. Host and device
 * code share it (the fused receiver's kernels).
 */
#ifndef INCLUDED_GPUMIMO_CORE_CARRIER_MAJOR_H
#define INCLUDED_GPUMIMO_CORE_CARRIER_MAJOR_H

#include <gnuradio/gpumimo/core/host_device.h>

#include <cstddef>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief The one regrouping of OFDM payload for the detectors, used by mimo_detector,
 * the CPU fused receiver and the GPU fused receiver's kernels.
 *
 * The detectors take one H per group of consecutive vectors (mimo_batch::group), and a
 * channel estimate gives one H per carrier; so a run of `symbols` payload symbols that
 * share an estimate goes to them carrier-major: detector vector c * symbols + s is
 * carrier c of payload symbol s, and group = symbols. The frame's order, in which LLRs
 * leave (docs/frame.md), is symbol-major: vector s * carriers + c.
 */
struct carrier_major {
    std::size_t carriers;
    std::size_t symbols;

    GPUMIMO_HOST_DEVICE std::size_t vectors() const { return carriers * symbols; }
    /*! Where carrier c of symbol s goes to the detector. */
    GPUMIMO_HOST_DEVICE std::size_t detector_vector(std::size_t c, std::size_t s) const
    {
        return c * symbols + s;
    }
    /*! Where carrier c of symbol s sits in the frame's order. */
    GPUMIMO_HOST_DEVICE std::size_t frame_vector(std::size_t c, std::size_t s) const
    {
        return s * carriers + c;
    }
};

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
