/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_GPU_LDPC_H
#define INCLUDED_GPUMIMO_CORE_GPU_LDPC_H

#include <gnuradio/gpumimo/core/ldpc/ldpc.h>

#include <cstdint>
#include <memory>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief The batched CUDA LDPC decoder (cuda/ldpc/gpu_ldpc_decoder.cu): many codewords at once,
 * one thread block per codeword, a thread per check of the layer being updated, the
 * codeword's a-posteriori LLRs and check messages in shared memory.
 *
 * The same algorithms, schedule and early termination as cpu_ldpc_decoder, and the
 * same outputs: min-sum bit for bit (the same float operations, rounded to nearest, no
 * fused multiply-add); sum-product through CUDA's own log1pf and expm1f, which can
 * differ from the C library's in the last place, so its LLRs agree to rounding and its
 * decisions wherever decoding converges (tests/ldpc/test_gpu_ldpc.cc).
 *
 * Device memory and pinned staging for max_frames codewords are allocated at
 * construction; decode() allocates nothing. Codes whose LLRs and messages do not fit in
 * a block's shared memory are refused (std::invalid_argument; 802.16e n = 2304 needs
 * 38 KB). CUDA failures throw std::runtime_error naming the call and CUDA's error.
 */
class gpu_ldpc_decoder
{
public:
    gpu_ldpc_decoder(const ldpc_code& code,
                     const ldpc_decoder_config& config,
                     std::size_t max_frames,
                     int device = 0);
    ~gpu_ldpc_decoder();
    gpu_ldpc_decoder(const gpu_ldpc_decoder&) = delete;
    gpu_ldpc_decoder& operator=(const gpu_ldpc_decoder&) = delete;

    std::size_t max_frames() const;

    /*! Host to host, as cpu_ldpc_decoder::decode: frames <= max_frames codewords of n
     *  LLRs; returns how many decoded (as cpu_ldpc_decoder). A pipeline: the batch in
     *  chunks (a quarter, at least 512 codewords) over two streams, copies overlapping
     *  kernels when the host memory is pinned. */
    std::size_t decode(const float* llr, std::size_t frames, const ldpc_outputs& out);
    std::size_t
    decode(const std::int8_t* llr, float scale, std::size_t frames, const ldpc_outputs& out);

    /*! Device to device on the decoder's stream, asynchronous: llr and every non-null
     *  pointer of `out` are device memory. synchronize() waits for it. */
    void decode_device(const float* llr, std::size_t frames, const ldpc_outputs& out);
    void decode_device(const std::int8_t* llr, float scale, std::size_t frames, const ldpc_outputs& out);
    /*! The same on the caller's `stream` (a cudaStream_t; nullptr: the default stream),
     *  after what it holds: a stage in the caller's pipeline (the fused receiver's
     *  decoding). One stream at a time per decoder (its satisfied count is one). */
    void decode_device(const float* llr, std::size_t frames, const ldpc_outputs& out, void* stream);
    void synchronize();

    /*! The device time of the last decode (CUDA events), in milliseconds: the kernel's
     *  for decode_device, the whole pipeline's (copies included) for decode. */
    float last_kernel_ms() const;

private:
    struct impl;
    std::unique_ptr<impl> d_impl;
};

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
