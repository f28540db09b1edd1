/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The synchroniser on one CUDA device (gpu_frame_sync.cu): the CUDA frame_sync_engine,
 * and the first stage of the stream receiver, which keeps its frames on the device.
 */
#ifndef INCLUDED_GPUMIMO_CUDA_GPU_FRAME_SYNC_CUH
#define INCLUDED_GPUMIMO_CUDA_GPU_FRAME_SYNC_CUH

#include "common/device_memory.cuh"

#include <gnuradio/gpumimo/core/frame/frame.h>
#include <gnuradio/gpumimo/core/frame/frame_sync_engine.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace gr {
namespace gpumimo {
namespace core {

// One frame the search kernel found, before its refinement.
struct gpu_sync_found {
    unsigned start, mid;
    double metric, coarse_cfo;
};
struct gpu_sync_totals {
    unsigned consumed, frames;
};

/*! frame_sync_engine::search on one device (its constructor's), everything allocated by
 *  the constructor (host_output: the pinned buffer search() copies the frames out
 *  through; a caller of search_on_device() alone needs none). */
class gpu_frame_sync
{
public:
    gpu_frame_sync(const frame_format& frame,
                   int antennas,
                   std::size_t max_input,
                   std::size_t max_frames,
                   int device,
                   bool host_output);
    ~gpu_frame_sync();
    gpu_frame_sync(const gpu_frame_sync&) = delete;
    gpu_frame_sync& operator=(const gpu_frame_sync&) = delete;

    /*! As frame_sync_engine::search: the frames copied out to out[a]. */
    sync_call_result search(const std::complex<float>* const* in,
                            std::uint64_t first_sample,
                            std::size_t n,
                            std::size_t max_frames,
                            double threshold,
                            std::complex<float>* const* out,
                            synced_frame* frames);
    /*! The same with the corrected frames left on the device, frame k of antenna a at
     *  device_frames(a) + k * frame.samples(), until the next call; the search's work
     *  has ended on the device when it returns. */
    sync_call_result search_on_device(const std::complex<float>* const* in,
                                      std::uint64_t first_sample,
                                      std::size_t n,
                                      std::size_t max_frames,
                                      double threshold,
                                      synced_frame* frames);
    const std::complex<float>* device_frames(int antenna) const;

private:
    const float2* take_in(const std::complex<float>* const* in,
                          std::uint64_t first_sample,
                          std::size_t n,
                          cudaStream_t st);
    void fetch_records(std::size_t count, cudaStream_t st, synced_frame* frames);

    const frame_format d_frame;
    const int d_antennas;
    const std::size_t d_cap, d_max_frames, d_len;
    const int d_device;
    std::unique_ptr<cuda::stream> d_stream;
    cuda::device_buffer<float2> d_samples[2];
    cuda::pinned_buffer<float2> d_stage;
    cuda::device_buffer<double2> d_S; // [antenna][position]: half-symbol sums
    cuda::device_buffer<double2> d_P;
    cuda::device_buffer<double> d_M;
    cuda::device_buffer<unsigned> d_tile_first;
    cuda::device_buffer<gpu_sync_found> d_found;
    cuda::device_buffer<gpu_sync_totals> d_totals;
    cuda::device_buffer<double> d_cfo;
    cuda::device_buffer<int> d_damaged;
    // The receiver's IQ imbalance (core::iq_state), learnt over the frames: the state
    // per antenna, twice (the one a call reads, d_iq[d_iq_current], and the one it
    // leaves), the learning windows' starts (iq_learning_windows), each found frame's
    // window sums [frame][antenna][window][3] and sums [frame][antenna][4], and usable
    // flags [frame][antenna][chunk] and [frame].
    cuda::device_buffer<iq_state> d_iq[2];
    int d_iq_current = 0;
    cuda::device_buffer<unsigned> d_iq_windows;
    unsigned d_iq_nwindows = 0;
    cuda::device_buffer<double> d_iq_window_sums, d_iq_sums;
    cuda::device_buffer<int> d_iq_chunk_usable,
        d_iq_usable;                        // [frame][antenna][chunk], [frame]
    cuda::device_buffer<float2> d_out;      // [antenna][max_frames][samples]
    cuda::pinned_buffer<float2> d_host_out; // host_output only
    cuda::pinned_buffer<gpu_sync_found> d_host_found;
    cuda::pinned_buffer<gpu_sync_totals> d_host_totals;
    cuda::pinned_buffer<double> d_host_cfo;
    cuda::pinned_buffer<int> d_host_damaged;
    cuda::device_buffer<int> d_prefix; // prefix_sample_positions
    int d_nprefix = 0;
    // The stream as the device holds it: d_kept samples at d_kept_from of buffer
    // d_current, the stream's samples from d_next_first on.
    int d_current = 0;
    bool d_continues = false;
    std::uint64_t d_next_first = 0;
    std::size_t d_kept_from = 0, d_kept = 0;
};

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
