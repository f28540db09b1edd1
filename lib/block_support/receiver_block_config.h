/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The receiver configuration that fused_receiver's and stream_receiver's parameters
 * give, checked once for both.
 */
#ifndef INCLUDED_GPUMIMO_RECEIVER_BLOCK_CONFIG_H
#define INCLUDED_GPUMIMO_RECEIVER_BLOCK_CONFIG_H

#include <gnuradio/gpumimo/core/detect/detector_spec.h>
#include <gnuradio/gpumimo/core/frame/fused_receiver.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpumimo {

/*! The frame, estimator, detector and antennas as a core::fused_receiver_config
 *  (validated: antennas from the streams to 16, a detector the constellation allows),
 *  and the int8 scale checked; std::invalid_argument naming `block` otherwise. */
inline core::fused_receiver_config receiver_block_config(const std::string& block,
                                                         const std::string& preset,
                                                         int streams,
                                                         const std::string& modulation,
                                                         int payload_symbols,
                                                         int antennas,
                                                         const core::detector_spec& detector,
                                                         const std::string& estimator,
                                                         float int8_scale,
                                                         int pilot_interval)
{
    core::fused_receiver_config c;
    c.estimator = core::parse_channel_estimator(estimator);
    c.frame = core::make_frame_format(preset, streams, modulation, payload_symbols, pilot_interval);
    c.rx = antennas;
    c.algo = detector.algo();
    c.params = detector.params();
    c.validate();
    if (!(int8_scale > 0) || !std::isfinite(int8_scale))
        throw std::invalid_argument(block + ": int8_scale must be finite and > 0");
    return c;
}

} // namespace gpumimo
} // namespace gr

#endif
