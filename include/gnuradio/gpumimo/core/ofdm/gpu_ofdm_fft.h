/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_CORE_GPU_OFDM_FFT_H
#define INCLUDED_GPUMIMO_CORE_GPU_OFDM_FFT_H

#include <gnuradio/gpumimo/core/ofdm/ofdm_fft.h>

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
 * overlap. Per chunk, all C x symbols are transformed at once, the conversions (decode,
 * remove the prefix and window, or place the carriers; then shift, select, scale,
 * window, insert the prefix and encode) done one of three ways (fft_fusion):
 * - single_pass: a transform of our own that reads the raw samples and writes the
 *   finished output in one kernel, the data crossing device memory once (fft_len a
 *   power of two from 64 to 4096);
 * - callbacks: cuFFT with the conversions as load and store callbacks linked at plan
 *   time (the data crosses device memory once, but cuFFT's callback kernels are slower
 *   than its plain ones; needs nvJitLink at run time);
 * - kernels: a conversion kernel before and one after plain cuFFT (three passes).
 * fft_fusion::automatic takes the first of these the size and the toolkit allow;
 * path() and fusion_note() say which and why. Plans (where cuFFT is used), device
 * buffers and pinned staging buffers are made by the constructor; process() allocates
 * nothing. Pinned caller memory is copied directly.
 *
 * Same semantics as cpu_ofdm_fft, float32 arithmetic. CUDA failures throw
 * std::runtime_error naming the call; a build without CUDA throws at construction. */
enum class fft_fusion {
    automatic,   //!< single_pass, else callbacks where cuFFT takes them, else kernels
    single_pass, //!< our transform, or std::invalid_argument for other sizes
    callbacks,   //!< callbacks or std::runtime_error at construction
    kernels      //!< conversion kernels around plain cuFFT
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
    /*! The way the conversions are done (fft_fusion; never automatic). */
    fft_fusion path() const;
    /*! True when the data crosses device memory once (single_pass or callbacks). */
    bool fused() const;
    /*! Why the single-pass transform (and the callbacks) are not used; empty when the
     *  single-pass transform is. */
    const std::string& fusion_note() const;
    /*! As cpu_ofdm_fft::process: returns the (channel, symbol) pairs zeroed for
     *  non-finite input. */
    std::size_t process(const ofdm_fft_io& io);
    /*! Streaming host to host, for callers that hand over one block of samples after
     *  another: submit() is process() without waiting for the call's last chunks, so
     *  they overlap the next submit()'s first ones instead of leaving the bus idle at
     *  each call's start and end. Until finish(), the buffers of every submitted call
     *  must stay valid and their outputs are not final. finish() waits for all of them
     *  and returns the (channel, symbol) pairs they zeroed, together. process() is
     *  submit() then finish(). A failure throws from the call that meets it, after
     *  waiting for everything in flight; the counts of unfinished calls are then lost.
     *  process_device() and enqueue_device() throw std::logic_error while submitted
     *  chunks are pending. */
    void submit(const ofdm_fft_io& io);
    std::size_t finish();
    /*! The same with io.in and io.out in the first device's memory (channels at their
     *  strides), for GPU stages that keep their data on the device: the work is ordered
     *  after what `stream` (a cudaStream_t; null: the default stream) holds and before
     *  what it gets next. Waits for the work to return the zeroed count. Buffers not on
     *  that device throw std::invalid_argument. */
    std::size_t process_device(const ofdm_fft_io& io, void* stream = nullptr);
    /*! process_device without waiting, for GPU stages in a chain: the work is enqueued
     *  on `stream` (a cudaStream_t; null: the default stream), after what it holds and
     *  before what it gets next, and the call returns at once; the buffers must stay
     *  valid until the stream has run it. The zeroed (channel, symbol) pairs are added
     *  to *zeroed, an unsigned in the first device's memory that the caller sets (null:
     *  not counted). The single-pass transform runs on `stream` itself, so calls on
     *  several streams overlap; the cuFFT paths take their turns on one stream of
     *  their own. Bad buffers throw as process_device does. */
    void enqueue_device(const ofdm_fft_io& io, void* stream, unsigned* zeroed = nullptr);

private:
    struct impl;
    std::unique_ptr<impl> d_impl;
};

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
