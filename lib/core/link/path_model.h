/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What mimo_channel.cc needs of the path models' file (mimo_channel_paths.cc).
 */
#ifndef INCLUDED_GPUMIMO_LINK_PATH_MODEL_H
#define INCLUDED_GPUMIMO_LINK_PATH_MODEL_H

#include <gnuradio/gpumimo/core/link/mimo_channel.h>

namespace gr {
namespace gpumimo {
namespace core {

/*! The largest sample clock offset the channel takes, ppm. */
constexpr double max_sco_ppm = 1000;
/*! The longest path delay the channel takes, samples: its taps' memory is bounded. */
constexpr double max_path_delay = 4096;

/*! Throws std::invalid_argument naming a path model's bad field. */
void validate_paths(const channel_params& p);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
