/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_LDPC_ENGINE_H
#define INCLUDED_GPUMIMO_CORE_LDPC_ENGINE_H

#include <gnuradio/gpumimo/core/engine.h>
#include <gnuradio/gpumimo/core/ldpc/ldpc.h>

#include <cstdint>
#include <memory>
#include <string>

namespace gr {
namespace gpumimo {
namespace core {

/*! What an LDPC decoder engine is made for. */
struct ldpc_engine_config {
    ldpc_decoder_config decoder;
    std::size_t max_frames = 4096; // codewords per decode() call (the GPU's buffers)
    int device = 0;
};

/*!
 * \brief LDPC decoding on one backend: the CPU reference (cpu_ldpc_decoder) or the GPU
 * (gpu_ldpc_decoder), behind one interface (docs/ldpc.md).
 */
class ldpc_decoder_engine
{
public:
    virtual ~ldpc_decoder_engine() = default;
    /*! "cpu" or "cuda": where the next call runs. */
    virtual const char* backend() const = 0;
    /*! n: the LLRs of one codeword. */
    virtual int codeword_bits() const = 0;
    /*! As cpu_ldpc_decoder::decode(): frames <= max_frames codewords of n LLRs; returns
     *  how many decoded (every check holds, no bit undecided). */
    virtual std::size_t decode(const float* llr, std::size_t frames, const ldpc_outputs& out) = 0;
    virtual std::size_t
    decode(const std::int8_t* llr, float scale, std::size_t frames, const ldpc_outputs& out) = 0;
    virtual gpu_fallback* fallback() { return nullptr; }
};

/*! The LDPC decoder factory: validates the configuration, makes the engine on `backend`
 *  ("auto", "cpu" or "cuda": choose_backend()), the CPU engine always beside a GPU one
 *  for the fallback policy (core/engine.h). */
std::unique_ptr<ldpc_decoder_engine> make_ldpc_decoder_engine(
    const ldpc_code& code,
    const ldpc_engine_config& config,
    const std::string& backend,
    std::string* fallback_reason = nullptr);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
