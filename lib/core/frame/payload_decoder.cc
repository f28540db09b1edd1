/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A frame's coded payload decoded by an LDPC engine (core/frame/payload_decoder.h).
 */
#include <gnuradio/gpumimo/core/frame/payload_decoder.h>

namespace gr {
namespace gpumimo {
namespace core {

payload_decoder::payload_decoder(const coded_payload& payload,
                                 const ldpc_decoder_config& config,
                                 const std::string& backend)
    : d_payload(payload)
{
    ldpc_engine_config c;
    c.decoder = config;
    c.max_frames = std::size_t(payload.codewords());
    d_engine = make_ldpc_decoder_engine(payload.code(), c, backend);
    d_llr.resize(std::size_t(payload.codewords()) * std::size_t(payload.n()));
    d_bits.resize(d_llr.size());
    d_satisfied.resize(std::size_t(payload.codewords()));
    d_iterations.resize(std::size_t(payload.codewords()));
}

payload_decode_report payload_decoder::decode(const float* payload_llr, std::uint8_t* info)
{
    const coded_payload& p = d_payload;
    const std::size_t N = std::size_t(p.n()), K = std::size_t(p.k());
    p.deinterleave(payload_llr, d_llr.data());
    ldpc_outputs out;
    out.bits = d_bits.data();
    out.iterations = d_iterations.data();
    out.satisfied = d_satisfied.data();
    payload_decode_report r;
    r.codewords = std::size_t(p.codewords());
    r.satisfied = d_engine->decode(d_llr.data(), r.codewords, out);
    for (std::size_t c = 0; c < r.codewords; c++) {
        p.encoder().extract(&d_bits[c * N], info + c * K);
        r.iterations += std::uint64_t(d_iterations[c]);
        if (!d_satisfied[c])
            continue;
        for (std::size_t b = 0; b < N; b++) // a NaN or 0 LLR decides 0, as the sinks do
            r.raw_errors += (d_llr[c * N + b] > 0.0f) != (d_bits[c * N + b] == 1);
        r.raw_bits += N;
    }
    return r;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
