/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_FRAME_PAYLOAD_DECODER_H
#define INCLUDED_GPUMIMO_CORE_FRAME_PAYLOAD_DECODER_H

#include <gnuradio/gpumimo/core/frame/coded_payload.h>
#include <gnuradio/gpumimo/core/ldpc/ldpc_engine.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief A frame's payload LLRs to its information bits: de-interleaved, decoded by an
 * LDPC engine (core/ldpc/ldpc_engine.h: the GPU with the CPU as fallback, or the CPU),
 * the information bits taken from each codeword's decisions.
 */
class payload_decoder
{
public:
    /*! backend: "auto", "cpu" or "cuda" (make_ldpc_decoder_engine). */
    payload_decoder(const coded_payload& payload,
                    const ldpc_decoder_config& config = ldpc_decoder_config(),
                    const std::string& backend = "auto");
    const char* backend() const { return d_engine->backend(); }
    /*! payload_bits() LLRs (the core's convention) to info_bits() bits. */
    payload_decode_report decode(const float* payload_llr, std::uint8_t* info);

private:
    const coded_payload& d_payload;
    std::unique_ptr<ldpc_decoder_engine> d_engine;
    std::vector<float> d_llr;
    std::vector<std::uint8_t> d_bits, d_satisfied;
    std::vector<int> d_iterations;
};

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
