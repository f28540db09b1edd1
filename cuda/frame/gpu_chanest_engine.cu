/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * mimo_chanest's GPU engine (core/frame/estimation/chanest_engine.h): a batch of frames in, their
 * channel estimates and derotated payload out, one round trip (the input and the payload
 * may be device memory already: device-resident stream buffers). The steps are the fused
 * receiver's (frame/estimation_kernels.cuh, gpu_channel_smoother); the host engine over
 * the references (core::estimate_channels, core::phase_tracker) is what tests hold this
 * to.
 *
 * Device layouts of a batch of nf <= F frames (F = max_frames slots), B pilot blocks a
 * frame (1 without time tracking):
 *   carriers [antenna][slot][symbol][used carrier]   (the frames copied in)
 *   h [slot][block][carrier][rx][tx], noise (the effective noise) [slot][block][carrier],
 *   noise_frame [slot][block], derot [slot][payload symbol][antenna] (and the tracking
 *   pilots' sums z, energy)
 *   payload [antenna][frame][payload symbol][used carrier]   (copied out per antenna)
 *   records [frame][payload symbol][item] (frames tracked in time: each symbol's
 *   interpolated estimate, written where the caller's records lie on the device, else
 *   here and copied out)
 */
#include "common/cuda_check.cuh"
#include "common/device_memory.cuh"
#include "detail/gpu_engines.h"
#include "frame/estimation_kernels.cuh"

#include <gnuradio/gpumimo/core/frame/estimation/chanest_engine.h>
#include <gnuradio/gpumimo/core/frame/estimation/gpu_channel_smoother.h>
#include <gnuradio/gpumimo/core/frame/estimation/phase_tracker.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

namespace gc = gr::gpumimo::cuda;
namespace ek = estimation_kernels;

namespace {

constexpr int kThreads = 256;

unsigned blocks_for(std::size_t n)
{
    return unsigned(std::min<std::size_t>((n + kThreads - 1) / kThreads, 1u << 20));
}

class gpu_chanest_engine : public chanest_engine
{
public:
    gpu_chanest_engine(const frame_format& frame, channel_estimator method, int rx, std::size_t max_frames, int device)
        : d_frame((frame.validate(), frame)),
          d_device(device),
          d_rx(rx),
          d_tx(frame.streams),
          d_F(max_frames),
          d_U(std::size_t(frame.num.used_carriers)),
          d_symbols(std::size_t(frame.symbols())),
          d_payload(std::size_t(frame.payload_symbols)),
          d_B(std::size_t(frame.pilot_blocks())),
          d_items(estimate_items_of(frame, rx))
    {
        detail::check_chanest_shape(rx, max_frames);
        const gc::device_guard keep;
        GPUMIMO_CUDA_CHECK(cudaSetDevice(device));
        d_stream = std::make_unique<gc::stream>();
        d_tables = ek::estimation_tables(frame);

        const std::size_t carrier_values = std::size_t(rx) * d_F * d_symbols * d_U;
        const std::size_t h_values = d_F * d_U * rx * d_tx; // one estimate a frame
        d_carriers = gc::device_buffer<float2>(carrier_values);
        d_stage_in = gc::pinned_buffer<float2>(carrier_values);
        d_h = gc::device_buffer<float2>(d_B * h_values);
        d_host_h = gc::pinned_buffer<float2>(h_values);
        d_noise = gc::device_buffer<float>(d_B * d_F * d_U);
        d_host_noise = gc::pinned_buffer<float>(d_F * d_U);
        d_noise_frame = gc::device_buffer<float>(d_B * d_F);
        d_host_noise_frame = gc::pinned_buffer<float>(d_F);
        if (d_B > 1) // each symbol's record, where the caller's lie in host memory
            d_records = gc::device_buffer<unsigned char>(d_F * d_payload * d_items.item_bytes());
        d_derot = gc::device_buffer<float2>(d_F * d_payload * std::size_t(rx));
        d_track_z = gc::device_buffer<double2>(d_F * d_payload * std::size_t(rx));
        d_track_energy = gc::device_buffer<double>(d_F * d_payload * std::size_t(rx));
        d_out = gc::device_buffer<float2>(std::size_t(rx) * d_F * d_payload * d_U);
        d_stage_out = gc::pinned_buffer<float2>(std::size_t(rx) * d_F * d_payload * d_U);
        d_damaged = gc::device_buffer<int>(d_F); // set each call by frame_finite_kernel
        d_host_damaged = gc::pinned_buffer<int>(d_F);
        // The least-squares estimates' error is N0 / Nt (the pilots' cover); N0 the mean
        // power of the preamble's empty carriers on every antenna (as the host engine's).
        // Each pilot block smoothed as a frame of its own.
        d_smoother = std::make_unique<gpu_channel_smoother>(
            frame.num, method, rx, d_tx, d_F * d_B, device, 1.0 / d_tx, double(d_tables.nempty) * rx);
    }
    const char* backend() const override { return "cuda"; }
    std::size_t max_frames() const override { return d_F; }

    void estimate(const chanest_batch& b, std::vector<channel_estimate>& estimates) override
    {
        detail::check_chanest_batch(b, d_F, d_symbols, d_items.frame_record_bytes());
        const gc::device_guard keep;
        GPUMIMO_CUDA_CHECK(cudaSetDevice(d_device));
        const cudaStream_t st = d_stream->get();
        const std::size_t nf = b.frames;
        copy_in(b, st);
        const int F = int(d_F), U = int(d_U), S = int(d_symbols), B = int(d_B);
        // Frames with unusable values are marked damaged here, on the device: the
        // kernels below skip them (an identity H) and the caller drops them.
        GPUMIMO_CUDA_CHECK(cudaMemsetAsync(d_damaged.get(), 0, nf * sizeof(int), st));
        const std::size_t frame_values = d_symbols * d_U;
        ek::frame_finite_kernel<<<blocks_for(std::size_t(d_rx) * nf * frame_values), kThreads, 0, st>>>(
            d_carriers.get(), frame_values, F, int(nf), d_rx, d_damaged.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("frame_finite_kernel");
        ek::estimate_kernel<<<blocks_for(nf * d_B * d_U), kThreads, 0, st>>>(
            d_carriers.get(), d_tables.pilots.get(), d_tables.cover.get(), d_damaged.get(),
            d_tables.block_start.get(), B, F, int(nf), d_rx, d_tx, U, S, d_h.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("estimate_kernel");
        ek::noise_kernel<<<unsigned(nf * d_B), ek::kNoiseThreads, 0, st>>>(
            d_carriers.get(), d_damaged.get(), d_tables.empty.get(), d_tables.nempty,
            d_tables.block_start.get(), B, F, d_rx, d_tx, U, S, d_noise.get(), d_noise_frame.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("noise_kernel");
        // Smoothed over frequency, each block as a frame; the per-carrier noise becomes
        // the effective noise.
        d_smoother->smooth_device(reinterpret_cast<std::complex<float>*>(d_h.get()),
                                  d_noise_frame.get(), nf * d_B, d_noise.get(), st);
        ek::track_phase_kernel<<<dim3(unsigned(d_payload), unsigned(nf)), ek::kTrackThreads, 0, st>>>(
            d_carriers.get(), d_h.get(), d_tables.track.get(), d_tables.track_pilots.get(), d_tables.ntrack,
            F, d_rx, d_tx, U, S, d_tables.payload_index.get(), d_tables.weight_before.get(),
            d_tables.weight.get(), B, int(d_payload), d_track_z.get(), d_track_energy.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("track_phase_kernel");
        ek::phase_decision_kernel<<<unsigned(nf), ek::kTrackThreads, 0, st>>>(
            d_track_z.get(), d_track_energy.get(), d_noise_frame.get(), B, d_damaged.get(), d_rx,
            int(d_payload), d_derot.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("phase_decision_kernel");
        ek::derotate_payload_kernel<<<blocks_for(std::size_t(d_rx) * nf * d_payload * d_U), kThreads, 0, st>>>(
            d_carriers.get(), d_derot.get(), F, int(nf), d_rx, U, S, d_tables.payload_index.get(),
            int(d_payload), d_out.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("derotate_payload_kernel");
        const bool direct = copy_out(b, st);
        GPUMIMO_CUDA_CHECK(cudaStreamSynchronize(st));
        land(b, direct, estimates);
    }

private:
    // Each antenna's frames into their slots: one copy per antenna for each run of
    // frames that follow each other in the input (all of them, mostly), staged through
    // page-locked memory where the input is not page-locked.
    void copy_in(const chanest_batch& b, cudaStream_t st)
    {
        const std::size_t frame_values = d_symbols * d_U;
        for (std::size_t f0 = 0; f0 < b.frames;) {
            std::size_t f1 = f0 + 1; // frames f0..f1-1 adjacent in the input
            while (f1 < b.frames && b.frame_at[f1] == b.frame_at[f1 - 1] + d_symbols)
                f1++;
            const std::size_t bytes = (f1 - f0) * frame_values * sizeof(float2);
            for (int r = 0; r < d_rx; r++) {
                const std::size_t slot = (std::size_t(r) * d_F + f0) * frame_values;
                gc::copy_to_device_async(d_carriers.get() + slot,
                                         b.in[r] + b.frame_at[f0] * d_U, bytes,
                                         d_stage_in.get() + slot, st);
            }
            f0 = f1;
        }
    }

    // The payload to the caller: device to device where it is on the GPU (a
    // device-resident stream buffer), by DMA in place where it is page-locked, else
    // staged (returns whether it went straight there); the estimates to page-locked
    // buffers; all on st.
    bool copy_out(const chanest_batch& b, cudaStream_t st)
    {
        const std::size_t nf = b.frames, values = nf * d_payload * d_U;
        const std::size_t bytes = values * sizeof(float2);
        bool direct = true;
        for (int r = 0; r < d_rx; r++)
            direct = direct && (gc::is_device(b.payload[r]) || gc::is_pinned_range(b.payload[r], bytes));
        for (int r = 0; r < d_rx; r++) {
            void* to = direct ? static_cast<void*>(b.payload[r])
                              : d_stage_out.get() + std::size_t(r) * values;
            GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(to, d_out.get() + std::size_t(r) * values, bytes,
                                               cudaMemcpyDefault, st));
        }
        // Each frame's estimate (its first pilot block's): strided where a frame has more.
        const std::size_t h_bytes = d_U * d_rx * d_tx * sizeof(float2), noise_bytes = d_U * sizeof(float);
        GPUMIMO_CUDA_CHECK(cudaMemcpy2DAsync(d_host_h.get(), h_bytes, d_h.get(), d_B * h_bytes, h_bytes, nf,
                                             cudaMemcpyDeviceToHost, st));
        GPUMIMO_CUDA_CHECK(cudaMemcpy2DAsync(d_host_noise.get(), noise_bytes, d_noise.get(), d_B * noise_bytes,
                                             noise_bytes, nf, cudaMemcpyDeviceToHost, st));
        GPUMIMO_CUDA_CHECK(cudaMemcpy2DAsync(d_host_noise_frame.get(), sizeof(float), d_noise_frame.get(),
                                             d_B * sizeof(float), sizeof(float), nf, cudaMemcpyDeviceToHost, st));
        GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(d_host_damaged.get(), d_damaged.get(), nf * sizeof(int),
                                           cudaMemcpyDeviceToHost, st));
        if (b.records)
            copy_records(b, st);
        return direct;
    }

    // Each frame's H and effective noise into its record, straight from the device (two
    // strided copies for the batch); frames tracked in time: each payload symbol's,
    // interpolated into the records where they lie on the device, else here and copied.
    void copy_records(const chanest_batch& b, cudaStream_t st)
    {
        if (d_B > 1) {
            const bool in_place = gc::is_device(b.records);
            const std::size_t stride = in_place ? b.record_stride : d_payload * d_items.item_bytes();
            unsigned char* to = in_place ? b.records : d_records.get();
            ek::interpolate_records_kernel<<<blocks_for(b.frames * d_payload * d_U), kThreads, 0, st>>>(
                d_h.get(), d_noise.get(), d_noise_frame.get(), d_damaged.get(), d_tables.weight_before.get(),
                d_tables.weight.get(), int(b.frames), int(d_B), int(d_U), int(d_payload), d_tx,
                d_rx * d_tx, to, stride, d_items.item_bytes());
            GPUMIMO_CUDA_CHECK_LAUNCH("interpolate_records_kernel");
            if (!in_place)
                GPUMIMO_CUDA_CHECK(cudaMemcpy2DAsync(b.records, b.record_stride, to, stride,
                                                     d_items.frame_record_bytes(), b.frames,
                                                     cudaMemcpyDefault, st));
            return;
        }
        const std::size_t h_bytes = d_items.noise_offset(), noise_bytes = d_U * sizeof(float);
        GPUMIMO_CUDA_CHECK(cudaMemcpy2DAsync(b.records, b.record_stride, d_h.get(), h_bytes, h_bytes,
                                             b.frames, cudaMemcpyDefault, st));
        GPUMIMO_CUDA_CHECK(cudaMemcpy2DAsync(b.records + d_items.noise_offset(), b.record_stride,
                                             d_noise.get(), noise_bytes, noise_bytes, b.frames,
                                             cudaMemcpyDefault, st));
    }

    // The batch's results from the page-locked buffers into the caller's estimates (and
    // its payload, where it was staged).
    void land(const chanest_batch& b, bool direct, std::vector<channel_estimate>& estimates)
    {
        const std::size_t nf = b.frames, m = std::size_t(d_rx) * d_tx;
        if (!direct) {
            const std::size_t values = nf * d_payload * d_U;
            for (int r = 0; r < d_rx; r++)
                std::memcpy(b.payload[r], d_stage_out.get() + std::size_t(r) * values,
                            values * sizeof(float2));
        }
        if (estimates.size() < nf) // never shrunk: the estimates' vectors are reused
            estimates.resize(nf);
        for (std::size_t f = 0; f < nf; f++) {
            b.usable[f] = d_host_damaged.get()[f] == 0;
            if (!b.usable[f]) // its estimate left as it was (chanest_engine::estimate)
                continue;
            channel_estimate& e = estimates[f];
            e.rx = d_rx;
            e.tx = d_tx;
            e.carriers = int(d_U);
            e.method = d_smoother->method();
            const auto* h = reinterpret_cast<const std::complex<float>*>(d_host_h.get()) + f * d_U * m;
            e.h.assign(h, h + d_U * m);
            const float n0 = d_host_noise_frame.get()[f];
            const float* eff = d_host_noise.get() + f * d_U;
            e.noise_var = n0;
            e.noise_eff.assign(eff, eff + d_U);
            // The smoother hands N0 + tx e_c: the error variance e_c back from it.
            e.error_var.resize(d_U);
            for (std::size_t c = 0; c < d_U; c++)
                e.error_var[c] = std::max(0.0f, (eff[c] - n0) / float(d_tx));
        }
    }

    const frame_format d_frame;
    const int d_device, d_rx, d_tx;
    const std::size_t d_F, d_U, d_symbols, d_payload, d_B;
    const estimate_items d_items; // the records' layout
    std::unique_ptr<gc::stream> d_stream;
    ek::estimation_tables d_tables;
    gc::device_buffer<int> d_damaged;
    gc::device_buffer<float2> d_carriers, d_h, d_derot, d_out;
    gc::device_buffer<double2> d_track_z; // the tracking pilots' sums, [slot][symbol][antenna]
    gc::device_buffer<double> d_track_energy;
    gc::device_buffer<float> d_noise, d_noise_frame;
    gc::device_buffer<unsigned char> d_records; // [frame][payload symbol][item], tracked frames
    gc::pinned_buffer<float2> d_stage_in, d_stage_out, d_host_h;
    gc::pinned_buffer<float> d_host_noise, d_host_noise_frame;
    gc::pinned_buffer<int> d_host_damaged;
    std::unique_ptr<gpu_channel_smoother> d_smoother;
};

} // namespace

namespace detail {
std::unique_ptr<chanest_engine> make_gpu_chanest_engine(const frame_format& frame,
                                                        channel_estimator method,
                                                        int rx,
                                                        std::size_t max_frames,
                                                        int device,
                                                        std::string*)
{
    return std::make_unique<gpu_chanest_engine>(frame, method, rx, max_frames, device);
}
} // namespace detail

} // namespace core
} // namespace gpumimo
} // namespace gr
