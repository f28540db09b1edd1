/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The OFDM FFT's single-pass path: a transform of our own (ofdm_fft_transform.cu) that
 * reads the raw samples, transforms them in registers and shared memory and writes the
 * finished output, conversions included, so the data crosses device memory once and
 * nothing else runs. Powers of two from 64 to 4096 points; other sizes take cuFFT.
 * Only the CUDA toolkit here.
 */
#ifndef INCLUDED_GPUMIMO_OFDM_FFT_TRANSFORM_CUH
#define INCLUDED_GPUMIMO_OFDM_FFT_TRANSFORM_CUH

#include "ofdm/ofdm_fft_device.cuh"

#include <cuda_runtime.h>

#include <vector>

namespace gr {
namespace gpumimo {
namespace cuda {

/*! True for the sizes the single-pass transform has: 64, 128, ..., 4096. */
bool single_pass_supports(int fft_len);

/*! e^{-2 pi i m / n} for m = 0 .. n-1, worked out in double: the table the transform's
 *  twiddles are read from (one device copy per device). */
std::vector<float2> single_pass_twiddles(int fft_len);

/*! What a chunk's transforms read and write, on the device: `in` and `out` in the
 *  chunk's layout (channel pitches g.in_pitch and g.out_pitch), `carrier_of_bin` the
 *  carrier of each bin (-1: unused), `window` g.n taps or null, `twiddles` the table
 *  above, `zeroed` the counter symbols with non-finite input add one each to (they
 *  come out zero). */
struct single_pass_buffers {
    const void* in;
    void* out;
    const float* window;
    const int* carrier_of_bin;
    const float2* twiddles;
    unsigned* zeroed;
};

/*! The whole chunk g (all channels x symbols), enqueued on `stream`; launch errors
 *  throw std::runtime_error. */
void enqueue_single_pass(const chunk_geometry& g,
                         bool forward,
                         const single_pass_buffers& b,
                         cudaStream_t stream);

} // namespace cuda
} // namespace gpumimo
} // namespace gr

#endif
