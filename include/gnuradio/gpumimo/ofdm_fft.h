/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_OFDM_FFT_H
#define INCLUDED_GPUMIMO_OFDM_FFT_H

#include <gnuradio/block.h>
#include <gnuradio/gpumimo/api.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {

/*!
 * \brief OFDM (de)modulator for C channels at once: cyclic prefix, batched FFT,
 * occupied carriers and sample formats, on a GPU or, without one, through FFTW.
 * \ingroup gpumimo
 *
 * \details
 * Forward (demodulator): C input streams of time samples, C output streams of vectors
 * of the occupied carriers. Every symbol of cp + fft_len samples loses its prefix, is
 * windowed, transformed, fftshifted (shift), reduced to the occupied carriers and
 * scaled. Inverse (modulator): C input streams of carrier vectors, C output streams of
 * time samples with the prefix in front of every symbol. docs/ofdm_fft.md gives the
 * definitions, formats and scales (fc32; fc16 = IEEE half; sc16 = value x 32768, the
 * USRP's; sc8 = value x 128), all as in core::ofdm_fft_config.
 *
 * cp_lengths is the prefix pattern, repeating (LTE at 2048 points: {160, 144, 144,
 * 144, 144, 144, 144}); symbol 0 of the pattern is the first symbol of the stream or,
 * with a sync_tag key, the first after each tag of that key on channel 0 (all channels
 * share one clock, as an N310 array does). Before the first such tag the input is
 * dropped; a tag that falls inside a symbol ends it early: the incomplete symbol is
 * dropped, logged and counted, and the pattern restarts at the tag.
 *
 * Tags: a tag on the input of a symbol goes to that symbol's output vector (forward)
 * or to the first sample of its prefix (inverse), on the same channel; tags on dropped
 * samples go to the next symbol's output. Symbols with NaN or Inf samples come out as
 * zeros and are counted.
 *
 * backend "auto" takes the GPU when one is usable and FFTW otherwise (logging why),
 * "cuda" requires a GPU, "cpu" takes FFTW. devices lists the CUDA devices the batch is
 * split over. batch is the largest number of symbols per channel in one call (0:
 * about 2^22 samples over all channels, at most 2048); the block asks for output buffers
 * of two batches and, on the GPU, for input buffers of two batches where they lie in host
 * memory (the upstream block's output buffer: GNU Radio sizes it from this block's
 * relative rate), so that the GPU sees full batches with no min_output_buffer set by the
 * user. A CUDA
 * failure while running logs an error and moves the block to FFTW; the flowgraph
 * goes on.
 */
class GPUMIMO_API ofdm_fft : virtual public gr::block
{
public:
    typedef std::shared_ptr<ofdm_fft> sptr;

    /*! device_buffers: where the engine runs on the GPU, this block's ports
     *  in the receiver chain are device-resident stream buffers, docs/frame.md; false:
     *  host buffers, so that such a port can also feed a CPU block such as a display,
     *  which GNU Radio refuses for a device buffer, at the cost of the copies.
     *  streamed: on host buffers, one transform stays in flight while the block returns
     *  (its symbols, tags and counts come out with the next call, which the block asks
     *  for), so that the GPU's copies and transforms overlap the flowgraph's handing
     *  over of buffers; on the CPU the work is done at once and only its output waits
     *  for the next call. Single-mapped buffers (device-resident ports, or a port whose
     *  neighbour asks for a custom buffer) are never streamed (docs/ofdm_fft.md). */
    static sptr make(int fft_len,
                     const std::vector<int>& cp_lengths,
                     const std::vector<int>& occupied_carriers = std::vector<int>(),
                     bool forward = true,
                     const std::string& input_format = "fc32",
                     const std::string& output_format = "fc32",
                     bool shift = true,
                     float scale = 1.0f,
                     const std::vector<float>& window = std::vector<float>(),
                     int channels = 1,
                     const std::string& backend = "auto",
                     const std::vector<int>& devices = std::vector<int>{ 0 },
                     int batch = 0,
                     const std::string& sync_tag = "",
                     bool device_buffers = true,
                     bool streamed = true);

    /*! "cuda" or "cpu": where the transforms run now. */
    virtual std::string backend() const = 0;
    /*! Occupied carriers per symbol (the vector length). */
    virtual int carriers() const = 0;
    /*! Symbols transformed, per channel. */
    virtual std::uint64_t symbols() const = 0;
    /*! Input samples dropped per channel: before the first sync tag and in incomplete
     *  symbols. */
    virtual std::uint64_t dropped_samples() const = 0;
    /*! Incomplete symbols dropped (a sync tag inside a symbol). */
    virtual std::uint64_t dropped_symbols() const = 0;
    /*! (channel, symbol) pairs output as zeros for NaN or Inf input. */
    virtual std::uint64_t zeroed_symbols() const = 0;
    /*! Calls of work() that caught an exception: logged through the block's logger, and
     *  the block went on with the items at hand dropped or erased (docs/reliability.md
     *  says how, block by block). */
    virtual std::uint64_t work_failures() const = 0;
};

} // namespace gpumimo
} // namespace gr

#endif
