/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_ERROR_COUNTER_H
#define INCLUDED_GPUMIMO_CORE_ERROR_COUNTER_H

#include <gnuradio/gpumimo/core/frame/frame.h>

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
 *
 * Resynchronisation works on frame boundaries, not on error-free runs: when a frame
 * disagrees with the continuation of the one before in more than a quarter of its bits,
 * the counter tries the sent sequence one, two, ... max_lost_frames frames further on
 * (the frames lost in between), screening each on the frame's first 1024 decisions, and
 * takes the candidate with the fewest errors. At 10% raw BER a lost frame is found again
 * on the next frame received.
 *
 * A frame that matches no candidate (the best is wrong in at least
 * comparable_fraction(frame_bits) of its bits: as good as a random guess) cannot be
 * compared: it counts as a frame error and in unsynchronised_frames(), but its bits are
 * left out of bits() and bit_errors(), which a random guess would only inflate; the
 * next frame is expected to follow it.
 */
class payload_error_counter
{
public:
    explicit payload_error_counter(std::size_t frame_bits);
    virtual ~payload_error_counter() = default;

    /*! Frames lost in a row that the boundary search follows. */
    static constexpr std::size_t max_lost_frames = 4096;
    /*! The error fraction from which n decisions are no better than a guess: 6 standard
     *  deviations (0.5 / sqrt(n) each) below one half, at least a quarter. */
    static double comparable_fraction(std::size_t n);

    /*! One frame's hard decisions (0 or 1, frame_bits of them). Returns its bit errors
     *  (those of the best candidate, also for a frame that could not be compared). */
    virtual std::size_t add_frame(const std::uint8_t* bits) = 0;

    std::size_t frame_bits() const { return d_frame_bits; }
    /*! Every frame given, compared or not. */
    std::uint64_t frames() const { return d_frames; }
    /*! Frames with a bit error, and frames that could not be compared. */
    std::uint64_t frame_errors() const { return d_frame_errors; }
    /*! Bit errors of the compared frames. */
    std::uint64_t bit_errors() const { return d_bit_errors; }
    /*! Bits of the compared frames. */
    std::uint64_t bits() const { return (d_frames - d_unsynced) * d_frame_bits; }
    /*! Frames that could not be compared (no candidate better than a guess). */
    std::uint64_t unsynchronised_frames() const { return d_unsynced; }
    /*! Frames after the first that matched a candidate other than the continuation of
     *  the frame before (frames were lost before them). */
    std::uint64_t resynchronisations() const { return d_resyncs; }
    /*! bit_errors() / bits(): over the compared frames. */
    double ber() const { return bits() ? double(d_bit_errors) / double(bits()) : 0.0; }
    double fer() const { return d_frames ? double(d_frame_errors) / double(d_frames) : 0.0; }

protected:
    /*! Counts a frame whose best candidate has `errors` bit errors (an uncomparable frame
     *  when they reach comparable_fraction); `resynchronised`: the candidate was not the
     *  continuation. Returns errors. */
    std::size_t record(std::size_t errors, bool resynchronised);
    /*! Whether the best candidate's errors make the frame comparable. */
    bool comparable(std::size_t errors) const;
    /*! The decisions the candidates are screened on: min(frame_bits, 1024). */
    std::size_t screen_bits() const;
    /*! The most errors a candidate may have in its screen_bits() to be counted in full. */
    std::size_t screen_limit() const;

    const std::size_t d_frame_bits;

private:
    std::uint64_t d_frames = 0, d_frame_errors = 0, d_bit_errors = 0, d_unsynced = 0,
                  d_resyncs = 0;
};

/*!
 * \brief Errors against a payload that is a PRBS running on across frames
 * (mimo_ofdm_tx's payload "prbs": PRBS-23 from a seed).
 *
 * Candidates for what a frame carries: the continuation of the previous frame's
 * sequence; the sequence 1..max_lost_frames frames further on (a jump of the register
 * by whole frames, a GF(2) map computed once); and the sequence that follows the
 * frame's own first `order` decisions (a loss of any length, found when those decisions
 * are right). payload_error_counter says how the best is chosen.
 */
class prbs_error_counter : public payload_error_counter
{
public:
    prbs_error_counter(int order, std::uint32_t seed, std::size_t frame_bits);

    std::size_t add_frame(const std::uint8_t* bits) override;

private:
    // Errors of the decisions [from, to) against gen's next bits (gen moves on), stopping
    // once more than `limit` are found.
    std::size_t errors_against(prbs& gen,
                               const std::uint8_t* bits,
                               std::size_t from,
                               std::size_t to,
                               std::size_t limit);

    const int d_order;
    prbs d_expected; //!< the continuation: where the next frame starts if none was lost
    std::vector<std::uint32_t> d_frame_jump; //!< the register one frame further on
};

/*!
 * \brief Errors against a payload taken from known bytes (mimo_ofdm_tx's payload
 * "bytes" fed from a file): the bytes' bits, most significant first
 * (core::unpack_bytes), read as a cyclic sequence, so that a transmitter repeating its
 * file is followed across the file's end.
 *
 * Frame n is expected at bit n * frame_bits (mod the reference's length) when no frame
 * was lost. To follow losses the counter also tries the starts 1..max_lost_frames
 * frames further on, and the places in the reference where a frame can start
 * (multiples of gcd(frame_bits, reference bits)) whose first 32 bits equal the frame's
 * first 32 decisions (at most 64 of them, a sorted index built once);
 * payload_error_counter says how the best is chosen. Memory: 16 bytes per possible
 * frame start.
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
    // Errors of the first `length` decisions against the reference from `start`,
    // stopping once more than `limit` are found.
    std::size_t errors_at(std::uint64_t start,
                          const std::uint8_t* bits,
                          std::size_t length,
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
