/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_STREAM_RECEIVER_ENGINE_H
#define INCLUDED_GPUMIMO_CORE_STREAM_RECEIVER_ENGINE_H

#include <gnuradio/gpumimo/core/engine.h>
#include <gnuradio/gpumimo/core/frame/frame_sync_engine.h>
#include <gnuradio/gpumimo/core/frame/fused_receiver.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief The whole receiver on one backend: received sample streams in, the LLRs of
 * every frame found out. The synchroniser (frame_sync_engine) then the fused receiver
 * (fused_receiver_config's FFT, estimates and detection) on the frames it found; on the
 * GPU the frames never leave the device (gpu_frame_sync's corrected frames go device to
 * device into gpu_fused_receiver), so per call the samples cross PCIe once and the LLRs
 * once, and the host neither searches nor corrects nor copies frames.
 */
class stream_receiver_engine
{
public:
    virtual ~stream_receiver_engine() = default;
    /*! "cpu" or "cuda": where the next call runs. */
    virtual const char* backend() const = 0;
    /*!
     * frame_sync_engine::search over antenna a's n samples at in[a] (first_sample,
     * max_frames, threshold as there), then the fused receiver on the frames found:
     * frame k's frame.payload_bits() LLRs at llr + k * payload_bits, its noise variance
     * at noise_var[k], its description at frames[k]. A frame that is not usable
     * (frames[k].usable false) has zero LLRs (the fused receiver's damaged frame).
     * report (may be null) gets the fused receiver's counts.
     */
    virtual sync_call_result process(const std::complex<float>* const* in,
                                     std::uint64_t first_sample,
                                     std::size_t n,
                                     std::size_t max_frames,
                                     double threshold,
                                     float* llr,
                                     float* noise_var,
                                     synced_frame* frames,
                                     fused_receiver_report* report) = 0;
    virtual gpu_fallback* fallback() { return nullptr; }
};

/*! The stream receiver factory: config as make_fused_receiver_engine's (without a code:
 *  the stream receiver gives LLRs), max_input and max_frames as
 *  make_frame_sync_engine's; backend "auto", "cpu" or "cuda" (choose_backend()), the
 *  CPU engine beside a GPU one for the fallback policy (core/engine.h). */
std::unique_ptr<stream_receiver_engine>
make_stream_receiver_engine(const fused_receiver_config& config,
                            std::size_t max_input,
                            std::size_t max_frames,
                            const std::string& backend,
                            int device = 0,
                            std::string* fallback_reason = nullptr);

/*! The CPU engine alone (the reference): make_cpu_frame_sync_engine's frames through a
 *  cpu_fused_receiver. */
std::unique_ptr<stream_receiver_engine> make_cpu_stream_receiver_engine(
    const fused_receiver_config& config, std::size_t max_input, std::size_t max_frames);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
