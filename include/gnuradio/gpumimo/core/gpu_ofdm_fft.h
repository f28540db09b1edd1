/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_CORE_GPU_OFDM_FFT_H
#define INCLUDED_GPUMIMO_CORE_GPU_OFDM_FFT_H

#include <gnuradio/gpumimo/core/ofdm_fft.h>

#include <memory>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*! The OFDM FFT of ofdm_fft.h on one or more CUDA devices, host to host.
 *
 * A call is cut into chunks of symbols (all channels together) that rotate over the
 * devices and, on each, over `streams` streams: the copy in of one chunk (in the input
 * format: sc8 moves a quarter of fc32's bytes), its kernels and the copy out of another
 * overlap. Per chunk, one kernel converts, removes (or, inverse: places carriers) and
 * windows, cuFFT transforms all C x symbols at once, and one kernel shifts, selects,
 * scales and converts. Plans, device buffers and pinned staging buffers are made by the
 * constructor; process() allocates nothing. Pinned caller memory is copied directly.
 *
 * Same semantics as cpu_ofdm_fft, float32 arithmetic. CUDA failures throw
 * std::runtime_error naming the call; a build without CUDA throws at construction. */
class gpu_ofdm_fft
{
public:
    /*! symbols_per_chunk 0: about 2^22 complex samples per chunk. */
    explicit gpu_ofdm_fft(const ofdm_fft_config& config,
                          const std::vector<int>& devices = { 0 },
                          std::size_t symbols_per_chunk = 0,
                          int streams = 3);
    ~gpu_ofdm_fft();
    gpu_ofdm_fft(const gpu_ofdm_fft&) = delete;
    gpu_ofdm_fft& operator=(const gpu_ofdm_fft&) = delete;

    const ofdm_fft_layout& layout() const;
    std::size_t symbols_per_chunk() const;
    /*! As cpu_ofdm_fft::process: returns the (channel, symbol) pairs zeroed for
     *  non-finite input. */
    std::size_t process(const ofdm_fft_io& io);
    /*! The same with io.in and io.out in the first device's memory (channels at their
     *  strides), for GPU stages that keep their data on the device: the work is ordered
     *  after what `stream` (a cudaStream_t; null: the default stream) holds and before
     *  what it gets next. Waits for the work to return the zeroed count. Buffers not on
     *  that device throw std::invalid_argument. */
    std::size_t process_device(const ofdm_fft_io& io, void* stream = nullptr);

private:
    struct impl;
    std::unique_ptr<impl> d_impl;
};

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
