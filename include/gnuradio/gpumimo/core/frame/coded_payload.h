/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_FRAME_CODED_PAYLOAD_H
#define INCLUDED_GPUMIMO_CORE_FRAME_CODED_PAYLOAD_H

#include <gnuradio/gpumimo/core/frame/frame.h>
#include <gnuradio/gpumimo/core/ldpc/ldpc.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief How a frame's payload carries LDPC codewords (docs/frame.md, "Coded payload").
 *
 * A frame holds codewords() = floor(payload_bits / n) codewords of the code, encoded
 * from info_bits() = codewords() x k information bits; their codewords() x n bits go
 * through the frame's interleaver to payload positions, and the payload bits left over
 * (fewer than n) are 0. The interleaver is a permutation of the codeword bits fixed by
 * the frame and the code: Fisher-Yates with std::mt19937_64 seeded by interleaver_seed
 * (j = rng() mod (i + 1) for i from the last position down), so any implementation
 * reproduces it; coded bit i goes to payload bit position(i). encode() uses the
 * object's scratch: one thread at a time.
 */
class coded_payload
{
public:
    /*! code: a name as ldpc_code_by_name takes it ("wimax_<n>", "nr_bg<g>_z<Z>[_rows<r>]" or an
     *  alist path).
     *  std::invalid_argument when the code is longer than the frame's payload. */
    coded_payload(const frame_format& frame,
                  const std::string& code,
                  std::uint64_t interleaver_seed = 1);

    const std::string& code_name() const { return d_name; }
    const ldpc_code& code() const { return d_code; }
    const ldpc_encoder& encoder() const { return *d_encoder; }
    int n() const { return d_encoder->n(); }
    int k() const { return d_encoder->k(); }
    int codewords() const { return d_codewords; }
    std::size_t info_bits() const { return std::size_t(d_codewords) * std::size_t(k()); }
    std::size_t payload_bits() const { return d_payload_bits; }
    /*! The payload position of coded bit i (0 .. codewords x n - 1). */
    std::uint32_t position(std::size_t i) const { return d_position[i]; }

    /*! info_bits() information bits (0 or 1) into the frame's payload_bits() bits. */
    void encode(const std::uint8_t* info, std::uint8_t* payload) const;
    /*! A frame's payload LLRs back into codeword order, codewords x n of them. */
    void deinterleave(const float* payload_llr, float* codeword_llr) const;

private:
    std::string d_name;
    ldpc_code d_code;
    std::unique_ptr<ldpc_encoder> d_encoder;
    int d_codewords = 0;
    std::size_t d_payload_bits = 0;
    std::vector<std::uint32_t> d_position;
    mutable std::vector<std::uint8_t> d_codeword; // encode()'s scratch
};

/*! What decoding one frame found. */
struct payload_decode_report {
    std::size_t codewords = 0;  //!< decoded
    std::size_t satisfied = 0;  //!< whose decisions satisfy every check
    std::uint64_t iterations = 0; //!< summed over the codewords
    /*! The channel's hard decisions against the decoded codeword, over the satisfied
     *  codewords only (there the decoded codeword is, with high probability, the one
     *  sent): the pre-decoding (uncoded) bit errors and bits. */
    std::uint64_t raw_errors = 0, raw_bits = 0;
};

/*!
 * \brief What a frame's decoding found, once a decoder has run over its codewords():
 * the information bits of each codeword's decisions into info (info_bits()), and the
 * counts. codeword_llr: the frame's LLRs in codeword order (deinterleave()); bits,
 * satisfied, iterations: the decoder's outputs (ldpc_outputs) for its codewords.
 * Shared by payload_decoder (any engine) and the fused receivers (their own decoders).
 */
payload_decode_report finish_payload_decode(const coded_payload& payload,
                                            const float* codeword_llr,
                                            const std::uint8_t* bits,
                                            const std::uint8_t* satisfied,
                                            const int* iterations,
                                            std::uint8_t* info);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
