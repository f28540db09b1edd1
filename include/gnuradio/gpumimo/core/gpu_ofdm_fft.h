/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_CORE_GPU_OFDM_FFT_H
#define INCLUDED_GPUMIMO_CORE_GPU_OFDM_FFT_H

#include <gnuradio/gpumimo/core/ofdm_fft.h>

#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*! The OFDM FFT of ofdm_fft.h on one or more CUDA devices, host to host.
 *
 * A call is cut into chunks of symbols (all channels together) that rotate over the
 * devices and, on each, over `streams` streams: the copy in of one chunk (in the input
 * format: sc8 moves a quarter of fc32's bytes), its kernels and the copy out of another
 * overlap. Per chunk, cuFFT transforms all C x symbols at once; the conversions around
 * it (decode, remove the prefix and window, or place the carriers; then shift, select,
 * scale, window, insert the prefix and encode) run either inside cuFFT's kernels as
 * load and store callbacks linked at plan time (fft_fusion::callbacks: the data crosses
 * device memory once) or as a kernel before and one after the transform
 * (fft_fusion::kernels: three passes). fft_fusion::automatic takes the callbacks where
 * cuFFT accepts them (it needs nvJitLink at run time) and the kernels otherwise;
 * fused() and fusion_note() say which and why. Plans, device buffers and pinned
 * staging buffers are made by the constructor; process() allocates nothing. Pinned
 * caller memory is copied directly.
 *
 * Same semantics as cpu_ofdm_fft, float32 arithmetic. CUDA failures throw
 * std::runtime_error naming the call; a build without CUDA throws at construction. */
enum class fft_fusion {
    automatic, //!< callbacks where cuFFT takes them, else kernels
    callbacks, //!< callbacks or std::runtime_error at construction
    kernels    //!< conversion kernels around plain cuFFT
};

class gpu_ofdm_fft
{
public:
    /*! symbols_per_chunk 0: about 2^22 complex samples per chunk. */
    explicit gpu_ofdm_fft(const ofdm_fft_config& config,
                          const std::vector<int>& devices = { 0 },
                          std::size_t symbols_per_chunk = 0,
                          int streams = 3,
                          fft_fusion fusion = fft_fusion::automatic);
    ~gpu_ofdm_fft();
    gpu_ofdm_fft(const gpu_ofdm_fft&) = delete;
    gpu_ofdm_fft& operator=(const gpu_ofdm_fft&) = delete;

    const ofdm_fft_layout& layout() const;
    std::size_t symbols_per_chunk() const;
    /*! True when the conversions run as cuFFT callbacks (see fft_fusion). */
    bool fused() const;
    /*! Why the callbacks are not used (empty when they are). */
    const std::string& fusion_note() const;
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
