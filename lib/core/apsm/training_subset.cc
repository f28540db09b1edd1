/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The pilots a training takes when it may take fewer than a frame has (apsm.h).
 */
#include <gnuradio/gpumimo/core/apsm/apsm.h>

#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

std::vector<std::size_t> training_subset(std::size_t n, std::size_t m)
{
    const std::size_t take = m == 0 || m >= n ? n : m;
    std::vector<std::size_t> index(take);
    // floor(i n / m): i n stays far below 2^64 for any pilot count a frame has.
    for (std::size_t i = 0; i < take; i++)
        index[i] = take == n ? i : i * n / take;
    return index;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
