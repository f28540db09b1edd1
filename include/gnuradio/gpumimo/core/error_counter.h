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
#include <utility>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief Bit and frame errors of received frames against what was sent, as a bit-error
 * tester counts them: frames arrive in order, some may be lost, and the tester follows
 * the sent sequence through the losses. Subclasses say what was sent.
 */
class payload_error_counter
{
public:
    explicit payload_error_counter(std::size_t frame_bits);
    virtual ~payload_error_counter() = default;

    /*! One frame's hard decisions (0 or 1, frame_bits of them). Returns its bit errors. */
    virtual std::size_t add_frame(const std::uint8_t* bits) = 0;

    std::size_t frame_bits() const { return d_frame_bits; }
    std::uint64_t frames() const { return d_frames; }
    std::uint64_t frame_errors() const { return d_frame_errors; }
    std::uint64_t bit_errors() const { return d_bit_errors; }
    std::uint64_t bits() const { return d_frames * d_frame_bits; }
    /*! Frames whose best candidate is wrong in more than a fifth of its bits. */
    std::uint64_t unsynchronised_frames() const { return d_unsynced; }
    /*! Frames after the first that matched a resynchronised candidate better than the
     *  continuation of the frame before (frames were lost before them). */
    std::uint64_t resynchronisations() const { return d_resyncs; }
    double ber() const { return bits() ? double(d_bit_errors) / double(bits()) : 0.0; }
    double fer() const { return d_frames ? double(d_frame_errors) / double(d_frames) : 0.0; }

protected:
    /*! Counts a frame with `errors` bit errors; `resynchronised`: its candidate was not
     *  the continuation. Returns errors. */
    std::size_t record(std::size_t errors, bool resynchronised);

    const std::size_t d_frame_bits;

private:
    std::uint64_t d_frames = 0, d_frame_errors = 0, d_bit_errors = 0, d_unsynced = 0,
                  d_resyncs = 0;
};

/*!
 * \brief Errors against a payload that is a PRBS running on across frames
 * (mimo_ofdm_tx's payload "prbs": PRBS-23 from a seed).
 *
 * Each frame's hard decisions are compared with two candidates for what was sent: the
 * continuation of the previous frame's sequence (frames arrive one after the other),
 * and the sequence that follows the frame's own first `order` decisions (frames were
 * lost before it: the tester resynchronises). The candidate with fewer errors counts;
 * the next frame continues from it. A frame lost and received with errors in its first
 * `order` bits can be miscounted as half wrong.
 */
class prbs_error_counter : public payload_error_counter
{
public:
    prbs_error_counter(int order, std::uint32_t seed, std::size_t frame_bits);

    std::size_t add_frame(const std::uint8_t* bits) override;

private:
    std::size_t errors_against(prbs& gen, const std::uint8_t* bits, std::size_t from);

    const int d_order;
    prbs d_expected; //!< the continuation: where the next frame starts if none was lost
    std::vector<std::uint8_t> d_ref;
};

/*!
 * \brief Errors against a payload taken from known bytes (mimo_ofdm_tx's payload
 * "bytes" fed from a file): the bytes' bits, most significant first
 * (core::unpack_bytes), read as a cyclic sequence, so that a transmitter repeating its
 * file is followed across the file's end.
 *
 * Frame n is expected at bit n * frame_bits (mod the reference's length) when no frame
 * was lost. To follow losses the counter also tries the places in the reference where
 * a frame can start (multiples of gcd(frame_bits, reference bits)) whose first 32 bits
 * equal the frame's first 32 decisions (at most 64 of them, a sorted index built once),
 * and keeps the candidate with the fewest errors; the next frame continues from it. A
 * frame lost and received with errors in its first 32 bits is counted against the
 * continuation (so possibly as half wrong). Memory: 16 bytes per possible frame start.
 */
class reference_error_counter : public payload_error_counter
{
public:
    /*! std::invalid_argument when `reference` is empty. */
    reference_error_counter(std::vector<std::uint8_t> reference, std::size_t frame_bits);

    std::size_t add_frame(const std::uint8_t* bits) override;

    /*! Bits in the reference (8 per byte). */
    std::uint64_t reference_bits() const { return d_ref_bits; }

private:
    std::uint8_t ref_bit(std::uint64_t at) const; //!< bit `at` mod reference_bits()
    std::uint32_t key_at(std::uint64_t at) const; //!< 32 bits from `at`, first bit highest
    std::size_t errors_at(std::uint64_t start, const std::uint8_t* bits,
                          std::size_t limit) const;

    const std::vector<std::uint8_t> d_ref;
    const std::uint64_t d_ref_bits;
    std::vector<std::pair<std::uint32_t, std::uint64_t>> d_index; //!< (key, start) sorted
    std::uint64_t d_next = 0; //!< where the next frame starts if none was lost
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
