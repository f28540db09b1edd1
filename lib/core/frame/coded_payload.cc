/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LDPC codewords in a frame's payload: encoding, the interleaver, de-interleaving
 * (core/frame/coded_payload.h, docs/frame.md).
 */
#include <gnuradio/gpumimo/core/frame/coded_payload.h>

#include <algorithm>
#include <random>
#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace core {

coded_payload::coded_payload(const frame_format& frame,
                             const std::string& code,
                             std::uint64_t interleaver_seed)
    : d_name(code), d_code(ldpc_code_by_name(code))
{
    frame.validate();
    d_encoder = std::make_unique<ldpc_encoder>(d_code);
    d_payload_bits = frame.payload_bits();
    d_codewords = int(d_payload_bits / std::size_t(d_encoder->n()));
    if (d_codewords < 1)
        throw std::invalid_argument("coded_payload: the code's " + std::to_string(n()) +
                                    " bits do not fit in the frame's " +
                                    std::to_string(d_payload_bits) +
                                    " payload bits (more payload symbols, or a shorter code)");
    const std::size_t coded = std::size_t(d_codewords) * std::size_t(n());
    d_position.resize(coded);
    for (std::size_t i = 0; i < coded; i++)
        d_position[i] = std::uint32_t(i);
    std::mt19937_64 rng(interleaver_seed); // its output sequence is fixed by the standard
    for (std::size_t i = coded - 1; i > 0; i--)
        std::swap(d_position[i], d_position[std::size_t(rng() % (i + 1))]);
    d_codeword.resize(std::size_t(n()));
}

void coded_payload::encode(const std::uint8_t* info, std::uint8_t* payload) const
{
    std::fill(payload, payload + d_payload_bits, std::uint8_t(0));
    const std::size_t N = std::size_t(n()), K = std::size_t(k());
    for (int c = 0; c < d_codewords; c++) {
        d_encoder->encode(info + std::size_t(c) * K, d_codeword.data()); // checks 0/1
        for (std::size_t b = 0; b < N; b++)
            payload[d_position[std::size_t(c) * N + b]] = d_codeword[b];
    }
}

void coded_payload::deinterleave(const float* payload_llr, float* codeword_llr) const
{
    for (std::size_t i = 0; i < d_position.size(); i++)
        codeword_llr[i] = payload_llr[d_position[i]];
}

payload_decode_report finish_payload_decode(const coded_payload& payload,
                                            const float* codeword_llr,
                                            const std::uint8_t* bits,
                                            const std::uint8_t* satisfied,
                                            const int* iterations,
                                            std::uint8_t* info)
{
    const std::size_t N = std::size_t(payload.n()), K = std::size_t(payload.k());
    payload_decode_report r;
    r.codewords = std::size_t(payload.codewords());
    for (std::size_t c = 0; c < r.codewords; c++) {
        payload.encoder().extract(&bits[c * N], info + c * K);
        r.iterations += std::uint64_t(iterations[c]);
        if (!satisfied[c])
            continue;
        r.satisfied++;
        for (std::size_t b = 0; b < N; b++) // a NaN or 0 LLR decides 0, as the sinks do
            r.raw_errors += (codeword_llr[c * N + b] > 0.0f) != (bits[c * N + b] == 1);
        r.raw_bits += N;
    }
    return r;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
