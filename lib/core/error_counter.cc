/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Frame-wise bit-error counting against a PRBS or a known-bytes payload, and LLR
 * statistics.
 */
#include <gnuradio/gpumimo/core/error_counter.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace core {

payload_error_counter::payload_error_counter(std::size_t frame_bits)
    : d_frame_bits(frame_bits)
{
    if (frame_bits == 0)
        throw std::invalid_argument("payload_error_counter: frame_bits must be > 0");
}

std::size_t payload_error_counter::record(std::size_t errors, bool resynchronised)
{
    d_resyncs += resynchronised && d_frames > 0;
    d_frames++;
    d_bit_errors += errors;
    d_frame_errors += errors > 0;
    d_unsynced += errors * 5 > d_frame_bits;
    return errors;
}

prbs_error_counter::prbs_error_counter(int order, std::uint32_t seed, std::size_t frame_bits)
    : payload_error_counter(frame_bits),
      d_order(order),
      d_expected(order, seed),
      d_ref(frame_bits)
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
    bool resynchronised = false;
    if (errors > 0 && !all_zero) {
        // The first `order` decisions are the resynchronised candidate's by definition.
        prbs resynced = prbs::following(d_order, bits);
        const std::size_t resync_errors = errors_against(resynced, bits, std::size_t(d_order));
        if (resync_errors < errors) {
            errors = resync_errors;
            continued = resynced;
            resynchronised = true;
        }
    }
    d_expected = continued;
    return record(errors, resynchronised);
}

namespace {
constexpr int key_bits = 32;
constexpr std::size_t max_candidates = 64;
} // namespace

reference_error_counter::reference_error_counter(std::vector<std::uint8_t> reference,
                                                 std::size_t frame_bits)
    : payload_error_counter(frame_bits),
      d_ref(std::move(reference)),
      d_ref_bits(8 * std::uint64_t(d_ref.size()))
{
    if (d_ref.empty())
        throw std::invalid_argument("reference_error_counter: the reference holds no bytes");
    if (frame_bits < std::size_t(key_bits))
        throw std::invalid_argument("reference_error_counter: a frame must hold at least "
                                    "32 bits");
    // Frames start at multiples of frame_bits, taken mod the reference's length when the
    // transmitter repeats it: at multiples of their gcd.
    const std::uint64_t step = std::gcd(std::uint64_t(frame_bits), d_ref_bits);
    d_index.reserve(std::size_t(d_ref_bits / step));
    for (std::uint64_t at = 0; at < d_ref_bits; at += step)
        d_index.emplace_back(key_at(at), at);
    std::sort(d_index.begin(), d_index.end());
}

std::uint8_t reference_error_counter::ref_bit(std::uint64_t at) const
{
    at %= d_ref_bits;
    return std::uint8_t((d_ref[std::size_t(at / 8)] >> (7 - at % 8)) & 1u);
}

std::uint32_t reference_error_counter::key_at(std::uint64_t at) const
{
    std::uint32_t key = 0;
    for (int i = 0; i < key_bits; i++)
        key = (key << 1) | ref_bit(at + std::uint64_t(i));
    return key;
}

std::size_t reference_error_counter::errors_at(std::uint64_t start,
                                               const std::uint8_t* bits,
                                               std::size_t limit) const
{
    // Stops once `limit` is passed: a candidate worse than the best so far is dropped.
    std::size_t errors = 0;
    for (std::size_t i = 0; i < d_frame_bits && errors <= limit; i++)
        errors += (bits[i] & 1u) != ref_bit(start + i);
    return errors;
}

std::size_t reference_error_counter::add_frame(const std::uint8_t* bits)
{
    std::uint64_t best_start = d_next;
    std::size_t best = errors_at(d_next, bits, d_frame_bits);
    if (best > 0) {
        std::uint32_t key = 0;
        for (int i = 0; i < key_bits; i++)
            key = (key << 1) | (bits[i] & 1u);
        auto it = std::lower_bound(d_index.begin(), d_index.end(),
                                   std::make_pair(key, std::uint64_t(0)));
        for (std::size_t tried = 0;
             it != d_index.end() && it->first == key && tried < max_candidates;
             ++it, tried++) {
            if (it->second == d_next)
                continue;
            const std::size_t e = errors_at(it->second, bits, best);
            if (e < best) {
                best = e;
                best_start = it->second;
            }
        }
    }
    const bool resynchronised = best_start != d_next;
    d_next = (best_start + d_frame_bits) % d_ref_bits;
    return record(best, resynchronised);
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
