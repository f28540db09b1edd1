/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The GPU engines behind the core's engine factories: declared here, made on the CUDA
 * side (beside each feature's runtime, cuda/<feature>/gpu_*.cu), or, in a build without
 * CUDA, refused with std::runtime_error "gr-gpumimo was built without CUDA"
 * (common/no_cuda.cc). A maker returns nullptr with the reason in *why where the GPU
 * cannot take the configuration (which choose_backend then reports), and throws where
 * making it failed. The factories wrap what they return with the CPU engine and the
 * fallback policy (core/engine.h).
 */
#ifndef INCLUDED_GPUMIMO_DETAIL_GPU_ENGINES_H
#define INCLUDED_GPUMIMO_DETAIL_GPU_ENGINES_H

#include <gnuradio/gpumimo/core/apsm/apsm_engine.h>
#include <gnuradio/gpumimo/core/constellation.h>
#include <gnuradio/gpumimo/core/detect/detector_engine.h>
#include <gnuradio/gpumimo/core/frame/estimation/chanest_engine.h>
#include <gnuradio/gpumimo/core/frame/frame_sync_engine.h>
#include <gnuradio/gpumimo/core/frame/fused_receiver_engine.h>
#include <gnuradio/gpumimo/core/frame/payload_detector.h>
#include <gnuradio/gpumimo/core/frame/estimation/smoothing_engine.h>
#include <gnuradio/gpumimo/core/frame/stream_receiver_engine.h>
#include <gnuradio/gpumimo/core/ldpc/ldpc_engine.h>
#include <gnuradio/gpumimo/core/ofdm/ofdm_fft_engine.h>

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpumimo {
namespace core {
namespace detail {

std::unique_ptr<detector_engine> make_gpu_detector_engine(const detector_config& config,
                                                          std::string* why);
std::unique_ptr<ofdm_fft_engine> make_gpu_ofdm_fft_engine(const ofdm_fft_config& config,
                                                          const ofdm_fft_options& options,
                                                          std::string* why);
std::unique_ptr<apsm_engine> make_gpu_apsm_engine(const apsm_engine_config& config,
                                                  std::string* why);
std::unique_ptr<ldpc_decoder_engine> make_gpu_ldpc_decoder_engine(
    const ldpc_code& code, const ldpc_engine_config& config, std::string* why);
std::unique_ptr<fused_receiver_engine>
make_gpu_fused_receiver_engine(const fused_receiver_config& config, int device, std::string* why);
std::unique_ptr<frame_sync_engine> make_gpu_frame_sync_engine(const frame_format& frame,
                                                              int antennas,
                                                              std::size_t max_input,
                                                              std::size_t max_frames,
                                                              int device,
                                                              std::string* why);
std::unique_ptr<stream_receiver_engine>
make_gpu_stream_receiver_engine(const fused_receiver_config& config,
                                std::size_t max_input,
                                std::size_t max_frames,
                                int device,
                                std::string* why);
std::unique_ptr<payload_detector> make_gpu_payload_detector(const payload_detector_config& config,
                                                            std::string* why);
std::unique_ptr<smoothing_engine> make_gpu_smoothing_engine(const numerology& num,
                                                            channel_estimator method,
                                                            int rx,
                                                            int tx,
                                                            double n0_samples,
                                                            std::size_t max_frames,
                                                            int device,
                                                            std::string* why);
std::unique_ptr<chanest_engine> make_gpu_chanest_engine(const frame_format& frame,
                                                        channel_estimator method,
                                                        int rx,
                                                        std::size_t max_frames,
                                                        int device,
                                                        std::string* why);

/*! Whether the GPU detectors' kernels take `mod`: they are instantiated for QPSK to
 *  256-QAM (2 to 8 bits a symbol); false with the reason in *why for 1024-QAM, BPSK and
 *  pi/2-BPSK, which run on the CPU. Inline: the CUDA objects call it (gpu_supports). */
inline bool gpu_detectors_take(modulation mod, std::string* why)
{
    const constellation c(mod);
    if (c.square() && c.bits_per_symbol() <= 8)
        return true;
    if (why)
        *why = to_string(mod) + ": the GPU detectors' kernels take QPSK to 256-QAM; it runs "
                                "on the CPU detectors";
    return false;
}

/*! chanest_engine's antennas and batch size at construction, the same on both backends:
 *  std::invalid_argument naming what is out of range. */
inline void check_chanest_shape(int rx, std::size_t max_frames)
{
    if (rx < 1 || rx > 16)
        throw std::invalid_argument("chanest_engine: rx must be 1..16, not " + std::to_string(rx));
    if (max_frames < 1 || max_frames > 64)
        throw std::invalid_argument("chanest_engine: max_frames must be 1..64, not " +
                                    std::to_string(max_frames));
}

/*! chanest_engine::estimate()'s batch, the same on both backends (inline: the CUDA
 *  objects call it): std::invalid_argument for null pointers, a frame count outside
 *  1..max_frames, frames (of `symbols` symbols) out of order or overlapping, or
 *  records closer together than a record's `record_bytes`. */
inline void check_chanest_batch(const chanest_batch& b,
                                std::size_t max_frames,
                                std::size_t symbols,
                                std::size_t record_bytes)
{
    if (b.records && b.record_stride < record_bytes)
        throw std::invalid_argument("chanest_engine: records " + std::to_string(b.record_stride) +
                                    " bytes apart, each of " + std::to_string(record_bytes));
    if (b.frames < 1 || b.frames > max_frames)
        throw std::invalid_argument("chanest_engine: " + std::to_string(b.frames) +
                                    " frames a call, made for 1 to " + std::to_string(max_frames));
    if (!b.in || !b.frame_at || !b.payload || !b.usable)
        throw std::invalid_argument("chanest_engine: null input, frame list, payload or usable list");
    for (std::size_t f = 1; f < b.frames; f++)
        if (b.frame_at[f] < b.frame_at[f - 1] + symbols)
            throw std::invalid_argument("chanest_engine: the frames must ascend without overlapping");
}

/*! smoothing_engine::smooth_frames()'s frame count, the same on both backends:
 *  std::invalid_argument unless 1 <= frames <= max_frames. Inline: the CUDA objects
 *  that call it are linked after the engines' in the static core library. */
inline void check_smoothing_frames(std::size_t frames, std::size_t max_frames)
{
    if (frames < 1 || frames > max_frames)
        throw std::invalid_argument("smoothing_engine: " + std::to_string(frames) +
                                    " frames a call, made for 1 to " +
                                    std::to_string(max_frames));
}

/*! smoothing_engine's antennas and streams on a call, the same on both backends:
 *  std::invalid_argument unless they are those it was made for. */
inline void check_smoothing_shape(int rx, int tx, int made_rx, int made_tx)
{
    if (rx != made_rx || tx != made_tx)
        throw std::invalid_argument("smoothing_engine: made for other antennas or streams");
}

/*! frame_sync_engine::search()'s argument checks, the same on both backends:
 *  std::invalid_argument naming what is out of range. */
void check_sync_call(std::size_t n,
                     std::size_t max_input,
                     std::size_t max_frames,
                     std::size_t capacity,
                     double threshold);

} // namespace detail
} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
