/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Frame-wise bit-error counting against a PRBS or a known-bytes payload, and LLR
 * statistics.
 */
#include <gnuradio/gpumimo/core/frame/error_counter.h>

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

double payload_error_counter::comparable_fraction(std::size_t n)
{
    return std::max(0.25, 0.5 - 3.0 / std::sqrt(double(std::max<std::size_t>(n, 1))));
}

bool payload_error_counter::comparable(std::size_t errors) const
{
    return double(errors) < comparable_fraction(d_frame_bits) * double(d_frame_bits);
}

std::size_t payload_error_counter::screen_bits() const
{
    return std::min<std::size_t>(d_frame_bits, 1024);
}

std::size_t payload_error_counter::screen_limit() const
{
    const std::size_t n = screen_bits();
    return std::size_t(comparable_fraction(n) * double(n));
}

std::size_t payload_error_counter::record(std::size_t errors, bool resynchronised)
{
    d_frames++;
    d_frame_errors += errors > 0;
    if (!comparable(errors)) { // a guess: its bits say nothing about the link
        d_unsynced++;
        return errors;
    }
    d_resyncs += resynchronised && d_frames > 1;
    d_bit_errors += errors;
    return errors;
}

prbs_error_counter::prbs_error_counter(int order, std::uint32_t seed, std::size_t frame_bits)
    : payload_error_counter(frame_bits),
      d_order(order),
      d_expected(order, seed),
      d_frame_jump(d_expected.jump_map(frame_bits))
{
    if (frame_bits <= std::size_t(order))
        throw std::invalid_argument("prbs_error_counter: a frame must hold more bits than "
                                    "the PRBS order");
}

std::size_t prbs_error_counter::errors_against(prbs& gen,
                                               const std::uint8_t* bits,
                                               std::size_t from,
                                               std::size_t to,
                                               std::size_t limit)
{
    std::size_t errors = 0;
    for (std::size_t i = from; i < to && errors <= limit; i++)
        errors += (bits[i] & 1u) != gen.next();
    return errors;
}

std::size_t prbs_error_counter::add_frame(const std::uint8_t* bits)
{
    const std::size_t F = d_frame_bits;
    prbs continued = d_expected;
    std::size_t best = errors_against(continued, bits, 0, F, F);
    prbs best_next = continued; // the register after the best candidate's frame
    bool resynchronised = false;
    auto consider = [&](const prbs& start, std::size_t from) {
        prbs screen = start;
        if (errors_against(screen, bits, from, std::max(from, screen_bits()), screen_limit()) >
            screen_limit())
            return;
        prbs full = start;
        const std::size_t e = errors_against(full, bits, from, F, best);
        if (e < best) {
            best = e;
            best_next = full;
            resynchronised = true;
        }
    };
    if (best * 4 > F) { // frames were lost before this one: search the frame boundaries
        prbs candidate = d_expected;
        for (std::size_t k = 1; k <= max_lost_frames && best > 0; k++) {
            candidate.apply_jump(d_frame_jump);
            consider(candidate, 0);
        }
        bool all_zero = true;
        for (int i = 0; i < d_order; i++)
            all_zero &= (bits[i] & 1u) == 0;
        if (!all_zero) // a longer loss: the register its first decisions give
            consider(prbs::following(d_order, bits), std::size_t(d_order));
    }
    if (!comparable(best)) { // nothing matched: expect the next frame to follow this one
        best_next = d_expected;
        best_next.apply_jump(d_frame_jump);
        resynchronised = false;
    }
    d_expected = best_next;
    return record(best, resynchronised);
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
                                               std::size_t length,
                                               std::size_t limit) const
{
    std::size_t errors = 0;
    for (std::size_t i = 0; i < length && errors <= limit; i++)
        errors += (bits[i] & 1u) != ref_bit(start + i);
    return errors;
}

std::size_t reference_error_counter::add_frame(const std::uint8_t* bits)
{
    const std::size_t F = d_frame_bits;
    std::uint64_t best_start = d_next;
    std::size_t best = errors_at(d_next, bits, F, F);
    auto consider = [&](std::uint64_t start) {
        if (start == best_start || errors_at(start, bits, screen_bits(), screen_limit()) >
                                       screen_limit())
            return;
        const std::size_t e = errors_at(start, bits, F, best);
        if (e < best) {
            best = e;
            best_start = start;
        }
    };
    if (best * 4 > F) { // frames were lost before this one: search the frame boundaries
        const std::uint64_t starts = d_ref_bits / std::gcd(std::uint64_t(F), d_ref_bits);
        const std::uint64_t step = std::uint64_t(F) % d_ref_bits;
        std::uint64_t start = d_next;
        for (std::uint64_t k = 1; k <= std::min<std::uint64_t>(max_lost_frames, starts - 1) &&
                                  best > 0;
             k++) {
            start = (start + step) % d_ref_bits;
            consider(start);
        }
        // A longer loss: the frame starts whose first 32 bits match its decisions.
        std::uint32_t key = 0;
        for (int i = 0; i < key_bits; i++)
            key = (key << 1) | (bits[i] & 1u);
        auto it = std::lower_bound(d_index.begin(), d_index.end(),
                                   std::make_pair(key, std::uint64_t(0)));
        for (std::size_t tried = 0;
             it != d_index.end() && it->first == key && tried < max_candidates && best > 0;
             ++it, tried++)
            consider(it->second);
    }
    if (!comparable(best)) // nothing matched: expect the next frame to follow this one
        best_start = d_next;
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
