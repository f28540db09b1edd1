/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_ERROR_COUNTER_H
#define INCLUDED_GPUMIMO_CORE_ERROR_COUNTER_H

#include <gnuradio/gpumimo/core/frame.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief Bit and frame errors of received frames whose payload is a PRBS running on
 * across frames (mimo_ofdm_tx's payload: PRBS-23 from a seed), as a bit-error tester
 * counts them.
 *
 * Each frame's hard decisions are compared with two candidates for what was sent: the
 * continuation of the previous frame's sequence (frames arrive one after the other),
 * and the sequence that follows the frame's own first `order` decisions (frames were
 * lost before it: the tester resynchronises). The candidate with fewer errors counts;
 * the next frame continues from it. A frame lost and received with errors in its first
 * `order` bits can be miscounted as half wrong; frames whose best candidate is wrong in
 * more than a fifth of its bits are counted as unsynchronised too.
 */
class prbs_error_counter
{
public:
    prbs_error_counter(int order, std::uint32_t seed, std::size_t frame_bits);

    /*! One frame's hard decisions (0 or 1, frame_bits of them). Returns its bit errors. */
    std::size_t add_frame(const std::uint8_t* bits);

    std::size_t frame_bits() const { return d_frame_bits; }
    std::uint64_t frames() const { return d_frames; }
    std::uint64_t frame_errors() const { return d_frame_errors; }
    std::uint64_t bit_errors() const { return d_bit_errors; }
    std::uint64_t bits() const { return d_frames * d_frame_bits; }
    std::uint64_t unsynchronised_frames() const { return d_unsynced; }
    /*! Frames after the first that matched the resynchronised candidate better. */
    std::uint64_t resynchronisations() const { return d_resyncs; }
    double ber() const { return bits() ? double(d_bit_errors) / double(bits()) : 0.0; }
    double fer() const { return d_frames ? double(d_frame_errors) / double(d_frames) : 0.0; }

private:
    std::size_t errors_against(prbs& gen, const std::uint8_t* bits, std::size_t from);

    const int d_order;
    const std::size_t d_frame_bits;
    prbs d_expected; //!< the continuation: where the next frame starts if none was lost
    std::vector<std::uint8_t> d_ref;
    std::uint64_t d_frames = 0, d_frame_errors = 0, d_bit_errors = 0, d_unsynced = 0,
                  d_resyncs = 0;
};

/*! Running statistics of LLRs: count, mean |LLR|, zeros (erasures), non-finite. */
struct llr_statistics {
    std::uint64_t count = 0;
    std::uint64_t zeros = 0;
    std::uint64_t non_finite = 0;
    double sum_abs = 0;

    void add(const float* llr, std::size_t n);
    double mean_abs() const
    {
        const std::uint64_t finite = count - non_finite;
        return finite ? sum_abs / double(finite) : 0.0;
    }
};

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
