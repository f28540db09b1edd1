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
    p.deinterleave(payload_llr, d_llr.data());
    ldpc_outputs out;
    out.bits = d_bits.data();
    out.iterations = d_iterations.data();
    out.satisfied = d_satisfied.data();
    d_engine->decode(d_llr.data(), std::size_t(p.codewords()), out);
    return finish_payload_decode(p, d_llr.data(), d_bits.data(), d_satisfied.data(),
                                 d_iterations.data(), info);
}

} // namespace core
} // namespace gpumimo
} // namespace gr
