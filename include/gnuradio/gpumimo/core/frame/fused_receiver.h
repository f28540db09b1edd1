/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: plain C++, no CUDA header needed to include it.
 */
#ifndef INCLUDED_GPUMIMO_CORE_FUSED_RECEIVER_H
#define INCLUDED_GPUMIMO_CORE_FUSED_RECEIVER_H

#include <gnuradio/gpumimo/core/detect/detector.h>
#include <gnuradio/gpumimo/core/frame/carrier_major.h>
#include <gnuradio/gpumimo/core/frame/estimation/channel_smoother.h>
#include <gnuradio/gpumimo/core/frame/frame.h>
#include <gnuradio/gpumimo/core/frame/coded_payload.h>
#include <gnuradio/gpumimo/core/ldpc/ldpc.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief What a fused receiver does to synchronised frames, in one call: the forward
 * OFDM FFT of every symbol (numerology::fft_config), channel estimates and the noise
 * variance per frame (estimate_channel with the configured estimator), then detection
 * of the payload with one H and one effective noise per used carrier, and the LLRs in
 * the frame's payload bit order
 * (frame_format: symbol, carrier, stream, bit).
 *
 * Input: `frames` frames of rx antennas, antenna a's samples at in[a], frame after frame
 * (frame.samples() each, carrier offset already taken off: mimo_ofdm_sync's output).
 * Output: frames x frame.payload_bits() LLRs, frame after frame; noise_var (may be null)
 * gets each frame's estimate.
 */
struct fused_receiver_config {
    frame_format frame;
    int rx = 1;
    algorithm algo = algorithm::mmse;
    detector_params params;
    /*! How the channel is estimated (core/frame/estimation/channel_smoother.h); the detector gets
     *  the estimate's effective noise per carrier. */
    channel_estimator estimator = channel_estimator::lmmse;
    /*! The payload's LDPC code (coded_payload: "wimax_<n>", "nr_bg<g>_z<Z>..." or an alist path; "" for an
     *  uncoded payload) and how it is decoded. With a code, process_decoded() gives each
     *  frame's information bits (samples in, decoded bits out); process() still gives
     *  the LLRs. A code the receivers cannot use (unknown, longer than the payload)
     *  makes their construction throw std::invalid_argument (coded_payload's). */
    std::string code;
    ldpc_decoder_config decoder;

    /*! Throws std::invalid_argument naming what is out of range (rx < streams, ...). */
    void validate() const;
};

/*! Counts of one call's damaged input, never thrown: the LLRs concerned are 0 (no
 *  information), never NaN. */
struct fused_receiver_report {
    /*! Frames holding a non-finite sample: all their LLRs are 0. */
    std::size_t damaged_frames = 0;
    /*! Channel estimates that cannot be used (not finite, N0 not > 0, H rank deficient
     *  on a carrier). CPU: frames, all their LLRs 0. GPU: chunks in which the detector
     *  met one; the LLRs of the carriers concerned are 0. */
    std::size_t unusable_estimates = 0;
};

/*! What decoding a call's frames found (process_decoded): payload_decode_report summed
 *  over the frames. A damaged frame or one with an unusable estimate is decoded from the
 *  zero LLRs the LLR path gives it: the all-zero codeword, which satisfies every check,
 *  so its information bits are zeros (counting errors against the payload finds them). */
using fused_decode_report = payload_decode_report;

/*! Where a payload vector sits, shared by both paths: a frame's payload goes to the
 *  detectors carrier-major (core/frame/carrier_major.h). */
struct fused_layout {
    // carriers: used carriers (the carrier grid's width); data: those the payload is
    // on (the detector's vectors: data x payload per frame).
    int carriers, data, symbols, first_payload, payload, bits_per_vector;
    explicit fused_layout(const frame_format& frame)
        : carriers(frame.num.used_carriers),
          data(frame.data_carrier_count()),
          symbols(frame.symbols()),
          first_payload(1 + frame.streams),
          payload(frame.payload_symbols),
          bits_per_vector(frame.streams * constellation(frame.mod).bits_per_symbol())
    {
    }
    carrier_major order() const { return { std::size_t(data), std::size_t(payload) }; }
    std::size_t payload_vectors() const { return order().vectors(); }
    std::size_t detector_vector(int c, int s) const { return order().detector_vector(c, s); }
    std::size_t payload_vector(int c, int s) const { return order().frame_vector(c, s); }
};

/*!
 * The CPU path: the stages of the separate blocks one after another in this thread
 * (FFTW where the build has it, the reference FFT otherwise; cpu_detector).
 * process() allocates nothing after the first call of its size.
 */
class cpu_fused_receiver
{
public:
    explicit cpu_fused_receiver(const fused_receiver_config& config);
    ~cpu_fused_receiver();
    cpu_fused_receiver(const cpu_fused_receiver&) = delete;
    cpu_fused_receiver& operator=(const cpu_fused_receiver&) = delete;

    const fused_receiver_config& config() const;
    std::size_t bits_per_frame() const;
    fused_receiver_report process(const std::complex<float>* const* in,
                                  std::size_t frames,
                                  float* llr,
                                  float* noise_var = nullptr);
    /*! config().code's information bits of each frame (info_bits_per_frame() each,
     *  0 or 1) instead of its LLRs: process() then core::payload_decoder on this thread
     *  (the CPU decoder). decoded (may be null) gets what the decoder found.
     *  std::logic_error without a code. */
    fused_receiver_report process_decoded(const std::complex<float>* const* in,
                                          std::size_t frames,
                                          std::uint8_t* info,
                                          fused_decode_report* decoded = nullptr,
                                          float* noise_var = nullptr);
    /*! Information bits per frame (0 without a code). */
    std::size_t info_bits_per_frame() const;

private:
    struct impl;
    std::unique_ptr<impl> d_impl;
};

/*!
 * The same on one CUDA device with only samples going in and LLRs coming out over
 * PCIe: frames go in chunks of `frames_per_chunk` through one pinned staging buffer
 * and device buffers per slot (`slots` of them); per chunk the copy in, the OFDM FFT
 * (gpu_ofdm_fft on the device-resident samples), a channel-estimation kernel, a kernel
 * that regroups the payload carrier-major (one H per carrier and frame), the detector
 * (gpu_detector::detect_device) and a kernel that puts the LLRs back in payload order,
 * then the copy out. One chunk's copy in and FFT overlap the previous chunk's detection
 * and copy out. Everything is allocated by the constructor (frames_per_chunk 0: as many
 * as the FFT's 64 channels allow, at most 16); process() allocates nothing.
 * Float32 arithmetic: LLRs equal cpu_fused_receiver's within the detectors' GPU bounds
 * (docs/gpu.md). CUDA failures throw std::runtime_error naming the call; a build
 * without CUDA throws at construction.
 */
class gpu_fused_receiver
{
public:
    explicit gpu_fused_receiver(const fused_receiver_config& config,
                                int device = 0,
                                std::size_t frames_per_chunk = 0,
                                int slots = 2);
    ~gpu_fused_receiver();
    gpu_fused_receiver(const gpu_fused_receiver&) = delete;
    gpu_fused_receiver& operator=(const gpu_fused_receiver&) = delete;

    const fused_receiver_config& config() const;
    std::size_t bits_per_frame() const;
    std::size_t frames_per_chunk() const;
    fused_receiver_report process(const std::complex<float>* const* in,
                                  std::size_t frames,
                                  float* llr,
                                  float* noise_var = nullptr);
    /*! process() with in[a] in this receiver's device memory (another GPU stage's
     *  output: gpu_frame_sync's corrected frames in the stream receiver): copied device
     *  to device into the chunks, no host staging; in[a]'s data must be complete on the
     *  device when the call is made. */
    fused_receiver_report process_device(const std::complex<float>* const* in,
                                         std::size_t frames,
                                         float* llr,
                                         float* noise_var = nullptr);
    /*! Samples in, decoded bits out, the LLRs never leaving the device: per chunk, after
     *  the LLR kernel, a kernel de-interleaves each frame's codewords, gpu_ldpc_decoder
     *  decodes them on the chunk's stream, and a kernel takes out the information bits
     *  and counts each satisfied codeword's uncoded errors; only those bits and counts
     *  are copied out (1 byte per information bit instead of 4 per payload bit). As
     *  cpu_fused_receiver::process_decoded(); the same bits where the LLRs agree. */
    fused_receiver_report process_decoded(const std::complex<float>* const* in,
                                          std::size_t frames,
                                          std::uint8_t* info,
                                          fused_decode_report* decoded = nullptr,
                                          float* noise_var = nullptr);
    std::size_t info_bits_per_frame() const;

private:
    struct impl;
    std::unique_ptr<impl> d_impl;
};

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
