/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Frame-wise bit-error counting against a PRBS payload, and LLR statistics.
 */
#include <gnuradio/gpumimo/core/error_counter.h>

#include <cmath>
#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace core {

prbs_error_counter::prbs_error_counter(int order, std::uint32_t seed, std::size_t frame_bits)
    : d_order(order), d_frame_bits(frame_bits), d_expected(order, seed), d_ref(frame_bits)
{
    if (frame_bits <= std::size_t(order))
        throw std::invalid_argument("prbs_error_counter: a frame must hold more bits than "
                                    "the PRBS order");
}

std::size_t prbs_error_counter::errors_against(prbs& gen, const std::uint8_t* bits, std::size_t from)
{
    gen.fill(d_ref.data() + from, d_frame_bits - from);
    std::size_t errors = 0;
    for (std::size_t i = from; i < d_frame_bits; i++)
        errors += (bits[i] & 1u) != d_ref[i];
    return errors;
}

std::size_t prbs_error_counter::add_frame(const std::uint8_t* bits)
{
    prbs continued = d_expected;
    std::size_t errors = errors_against(continued, bits, 0);
    bool all_zero = true;
    for (int i = 0; i < d_order; i++)
        all_zero &= (bits[i] & 1u) == 0;
    if (errors > 0 && !all_zero) {
        // The first `order` decisions are the resynchronised candidate's by definition.
        prbs resynced = prbs::following(d_order, bits);
        const std::size_t resync_errors = errors_against(resynced, bits, std::size_t(d_order));
        if (resync_errors < errors) {
            errors = resync_errors;
            continued = resynced;
            d_resyncs += d_frames > 0;
        }
    }
    d_expected = continued;
    d_frames++;
    d_bit_errors += errors;
    d_frame_errors += errors > 0;
    d_unsynced += errors * 5 > d_frame_bits;
    return errors;
}

void llr_statistics::add(const float* llr, std::size_t n)
{
    for (std::size_t i = 0; i < n; i++) {
        if (!std::isfinite(llr[i])) {
            non_finite++;
            continue;
        }
        zeros += llr[i] == 0.0f;
        sum_abs += std::fabs(double(llr[i]));
    }
    count += n;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
