/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fused receiver on the GPU: synchronised frames in, LLRs out, everything between on
 * the device (core/fused_receiver.h). The FFT and the detector are the core's own
 * (gpu_ofdm_fft, gpu_detector), the estimation kernels mimo_chanest's GPU engine's
 * (frame/estimation_kernels.cuh: least squares, the noise variance, the tracking pilots'
 * common phase) and the smoothing gpu_channel_smoother; the kernels here are the rest
 * of the glue: finiteness per frame and the two regroupings around the detector.
 *
 * Device layouts of a chunk of F frame slots (nf <= F used):
 *   samples  [antenna][slot][frame.samples()]   (FFT channel a * F + f, one stride)
 *   carriers [antenna][slot][symbol][carrier]
 *   h        [slot][block][carrier][rx][tx]     (every used carrier, each pilot block)
 *   noise    [slot][block][carrier]          (the effective noise after smoothing)
 *   z, energy [slot][payload symbol][antenna] (the tracking pilots' sums)
 *   derot    [slot][payload symbol][antenna] (e^{-i phi}: the tracking pilots' phase)
 *   h_data   [slot][data carrier][rx][tx]    (detector channel f * D + d), or with time
 *            tracking [slot][data carrier][payload symbol][rx][tx] (one per vector)
 *   noise_data [slot][data carrier] (or [slot][data carrier][payload symbol])
 *   y        [slot][data carrier][payload symbol][rx] (carrier-major: group = payload)
 *   llr      [slot][payload symbol][data carrier][bit] (the frame's payload order)
 */
#include "common/cuda_check.cuh"
#include "common/device_memory.cuh"
#include "common/slot_ring.cuh"
#include "detail/gpu_engines.h"
#include "common/gpu_math.cuh"
#include "frame/estimation_kernels.cuh"
#include "frame/fused_decoding.cuh"

#include <gnuradio/gpumimo/core/frame/frame_receiver.h>
#include <gnuradio/gpumimo/core/frame/estimation/gpu_channel_smoother.h>
#include <gnuradio/gpumimo/core/frame/fused_receiver.h>
#include <gnuradio/gpumimo/core/frame/estimation/phase_tracker.h>
#include <gnuradio/gpumimo/core/detect/gpu_detector.h>
#include <gnuradio/gpumimo/core/frame/coded_payload.h>
#include <gnuradio/gpumimo/core/ldpc/gpu_ldpc.h>
#include <gnuradio/gpumimo/core/ofdm/gpu_ofdm_fft.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

namespace gc = gr::gpumimo::cuda;

namespace {

constexpr int kThreads = 256;
namespace ek = estimation_kernels;

unsigned blocks_for(std::size_t n)
{
    return unsigned(std::min<std::size_t>((n + kThreads - 1) / kThreads, 1u << 20));
}

// The detectors' matrices and noise on the data carriers only: h_data[f][d] =
// h[f][data[d]], noise_data[f][d] = noise[f][data[d]].
__global__ void data_carrier_kernel(const float2* h,
                                    const float* noise,
                                    const int* data,
                                    int used,
                                    int D,
                                    int U,
                                    int m,
                                    float2* h_data,
                                    float* noise_data)
{
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= std::size_t(used) * D)
        return;
    const std::size_t f = i / D, c = f * U + data[i % D];
    for (int e = 0; e < m; e++)
        h_data[i * m + e] = h[c * m + e];
    noise_data[i] = noise[c];
}

// Time tracking: each payload vector's matrix and noise, h_data[f][d][s] = (1 - w_s)
// h[f][b_s][data[d]] + w_s h[f][b_s + 1][data[d]] (core::interpolate_estimate), the
// error variances (noise - N0) / tx of the two blocks mixed with (1 - w)^2 and w^2.
__global__ void interpolate_kernel(const float2* h,
                                   const float* noise,
                                   const float* noise_block, // [slot][block]: N0
                                   const int* data,
                                   const int* weight_before,
                                   const float* weight,
                                   int used,
                                   int blocks,
                                   int D,
                                   int U,
                                   int payload,
                                   int tx,
                                   int m,
                                   float2* h_data,
                                   float* noise_data)
{
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= std::size_t(used) * D * payload)
        return;
    const int s = int(i % payload), d = int(i / payload % D), f = int(i / payload / D);
    const std::size_t a = std::size_t(f * blocks + weight_before[s]), b = a + 1;
    const std::size_t c = std::size_t(data[d]);
    const float w = weight[s], v = 1 - w;
    const float2* ha = h + (a * U + c) * m;
    if (w == 0) {
        for (int e = 0; e < m; e++)
            h_data[i * m + e] = ha[e];
        noise_data[i] = noise[a * U + c];
        return;
    }
    const float2* hb = h + (b * U + c) * m;
    for (int e = 0; e < m; e++)
        h_data[i * m + e] = ek::mix_h(v, w, ha[e], hb[e]);
    noise_data[i] = ek::mix_noise(v, w, noise[a * U + c], noise[b * U + c], noise_block[a], noise_block[b], tx);
}

// y[f][d][s][r] = data carrier d of payload symbol s on antenna r, turned back by the
// symbol's common phase.
__global__ void gather_payload_kernel(const float2* carriers,
                                      const int* damaged,
                                      const int* data,
                                      const float2* derot,
                                      int slots,
                                      int used,
                                      int rx,
                                      int D,
                                      int U,
                                      int symbols,
                                      const int* payload_index, // [payload]: OFDM symbol
                                      int payload,
                                      float2* y)
{
    // Each frame's payload carrier-major (core/frame/carrier_major.h), frame after frame.
    const core::carrier_major order{ std::size_t(D), std::size_t(payload) };
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= std::size_t(used) * order.vectors())
        return;
    const int f = int(i / order.vectors());
    const std::size_t v = i % order.vectors(); // = order.detector_vector(d, s)
    const std::size_t s = v % order.symbols, d = v / order.symbols;
    const int c = data[d];
    float2* to = y + (f * order.vectors() + order.detector_vector(d, s)) * rx;
    for (int r = 0; r < rx; r++) {
        const float2 w = derot[(std::size_t(f) * payload + s) * rx + r];
        const float2 x = carriers[((std::size_t(r) * slots + f) * symbols + payload_index[s]) * U + c];
        to[r] = damaged[f] ? make_float2(0, 0) : make_float2(x.x * w.x - x.y * w.y, x.x * w.y + x.y * w.x);
    }
}

// Back to payload order; damaged frames and non-finite values (N0 of 0 from a silent
// frame, say) leave as 0.
__global__ void scatter_llr_kernel(const float* detected,
                                   const int* damaged,
                                   int used,
                                   int D,
                                   int payload,
                                   int bits,
                                   float* out)
{
    // From carrier-major back to the frame's order (core/frame/carrier_major.h).
    const core::carrier_major order{ std::size_t(D), std::size_t(payload) };
    const std::size_t total = std::size_t(used) * order.vectors() * bits;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < total;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const int b = int(i % bits);
        const std::size_t rest = i / bits; // f * vectors + order.frame_vector(c, s)
        const std::size_t v = rest % order.vectors();
        const int f = int(rest / order.vectors());
        const std::size_t c = v % order.carriers, s = v / order.carriers;
        const float x =
            detected[(f * order.vectors() + order.detector_vector(c, s)) * bits + b];
        out[i] = damaged[f] || !isfinite(x) ? 0.0f : x;
    }
}

using gc::upload;
using gc::upload_as;

std::size_t default_frames(int rx)
{
    return std::size_t(std::max(1, std::min(16, 64 / rx)));
}

} // namespace

struct gpu_fused_receiver::impl {
    // One slot's buffers (the ring holds its stream and event).
    struct slot {
        gc::event ready; // estimates and payload regrouped: the detector may start
        gc::event detect_done;
        std::size_t first_frame = 0, frames = 0;
        gc::pinned_buffer<float2> host_samples;
        gc::pinned_buffer<float> host_llr, host_noise;
        gc::pinned_buffer<int> host_damaged;
        gc::device_buffer<float2> samples, carriers, h, y, derot, h_data;
        gc::device_buffer<float> noise, noise_frame, noise_data, detected, llr;
        gc::device_buffer<double2> track_z; // the tracking pilots' sums, [slot][symbol][antenna]
        gc::device_buffer<double> track_energy;
        gc::device_buffer<int> damaged;
        // Its own workspaces: the slots' chunks overlap.
        std::unique_ptr<gpu_channel_smoother> smoother;
        // With a code: the chunk's codewords, decoded on its stream by its own decoder.
        std::unique_ptr<gpu_ldpc_decoder> decoder;
        gc::device_buffer<float> codeword_llr;
        gc::device_buffer<std::uint8_t> codeword_bits, satisfied, info;
        gc::device_buffer<int> iterations, raw_errors;
        gc::pinned_buffer<std::uint8_t> host_info, host_satisfied;
        gc::pinned_buffer<int> host_iterations, host_raw_errors;
        bool decoded = false; // this chunk went through the decoder (process_decoded)
        bool llr_landed = false; // its LLRs were copied straight to the caller's output
    };

    fused_receiver_config config;
    fused_layout L;
    int blocks; // pilot blocks a frame (1: no time tracking)
    std::size_t matrices; // detector matrices a frame: one per data carrier, or per vector
    int device;
    std::size_t F;
    std::size_t samples_per_frame, bits;
    gpu_ofdm_fft fft;
    gpu_detector detector;
    std::unique_ptr<gc::stream> detect_stream; // made on `device`
    ek::estimation_tables tables;
    gc::device_buffer<int> data;
    std::vector<slot> slots;
    std::unique_ptr<gc::slot_ring> ring; // slot k's stream
    float* out_llr = nullptr;
    float* out_noise = nullptr;
    fused_receiver_report report;
    // With a code (config.code): the payload's layout on the device.
    std::unique_ptr<coded_payload> coded;
    std::size_t codewords = 0, cw_n = 0, cw_k = 0; // per frame; each codeword's n, k
    gc::device_buffer<std::uint32_t> positions;
    gc::device_buffer<int> info_positions;
    bool decoding = false; // the call under way is process_decoded
    bool device_input = false; // the call under way has its frames on the device
    std::uint8_t* out_info = nullptr;
    fused_decode_report decode_sum;

    static ofdm_fft_config fft_config(const fused_receiver_config& c, std::size_t frames)
    {
        c.validate();
        return c.frame.num.fft_config(fft_direction::forward, c.rx * int(frames));
    }

    impl(const fused_receiver_config& c, int dev, std::size_t frames, int nslots)
        : config(c),
          L(c.frame),
          blocks(c.frame.pilot_blocks()),
          matrices(blocks > 1 ? L.payload_vectors() : std::size_t(L.data)),
          device(dev),
          F(frames ? frames : default_frames(c.rx)),
          samples_per_frame(c.frame.samples()),
          bits(c.frame.payload_bits()),
          fft((check(c, F, nslots), fft_config(c, F)), { dev }, 0, 1),
          detector(c.algo, c.frame.mod, c.frame.streams, c.rx, c.params, dev)
    {
        const gc::device_guard keep;
        GPUMIMO_CUDA_CHECK(cudaSetDevice(device));
        detect_stream = std::make_unique<gc::stream>();
        tables = ek::estimation_tables(c.frame);
        data = upload(data_carriers(c.frame.num));

        const std::size_t carrier_values = std::size_t(c.rx) * F * L.symbols * L.carriers;
        const std::size_t vectors = F * L.payload_vectors();
        slots.resize(std::size_t(nslots));
        ring = std::make_unique<gc::slot_ring>(slots.size(), std::vector<int>{ device });
        for (slot& s : slots) {
            s.host_samples = gc::pinned_buffer<float2>(std::size_t(c.rx) * F * samples_per_frame);
            s.host_llr = gc::pinned_buffer<float>(F * bits);
            s.host_noise = gc::pinned_buffer<float>(F);
            s.host_damaged = gc::pinned_buffer<int>(F);
            s.samples = gc::device_buffer<float2>(std::size_t(c.rx) * F * samples_per_frame);
            s.carriers = gc::device_buffer<float2>(carrier_values);
            const std::size_t B = std::size_t(blocks);
            s.h = gc::device_buffer<float2>(F * B * L.carriers * c.rx * c.frame.streams);
            s.y = gc::device_buffer<float2>(vectors * c.rx);
            s.noise = gc::device_buffer<float>(F * B * L.carriers);
            s.derot = gc::device_buffer<float2>(F * L.payload * c.rx);
            s.track_z = gc::device_buffer<double2>(F * L.payload * c.rx);
            s.track_energy = gc::device_buffer<double>(F * L.payload * c.rx);
            s.h_data = gc::device_buffer<float2>(F * matrices * c.rx * c.frame.streams);
            s.noise_data = gc::device_buffer<float>(F * matrices);
            s.noise_frame = gc::device_buffer<float>(F * B); // N0 per frame and block
            s.detected = gc::device_buffer<float>(F * bits);
            s.llr = gc::device_buffer<float>(F * bits);
            s.damaged = gc::device_buffer<int>(F);
            // The least-squares estimates' error is N0 / Nt (the pilots' cover); N0 the
            // mean power of the preamble's empty carriers on every antenna.
            // Each pilot block is smoothed as a frame of its own.
            s.smoother = std::make_unique<gpu_channel_smoother>(
                c.frame.num, c.estimator, c.rx, c.frame.streams, F * B, dev, 1.0 / c.frame.streams,
                double(tables.nempty) * c.rx);
            // Slots a short chunk leaves unused still go through the FFT: zeros there,
            // not whatever the allocation held.
            GPUMIMO_CUDA_CHECK(cudaMemset(
                s.samples.get(), 0, s.samples.size() * sizeof(float2)));
        }
        if (!c.code.empty())
            prepare_decoding();
    }

    // Everything process_decoded needs, allocated once here.
    void prepare_decoding()
    {
        coded = std::make_unique<coded_payload>(config.frame, config.code);
        codewords = std::size_t(coded->codewords());
        cw_n = std::size_t(coded->n());
        cw_k = std::size_t(coded->k());
        std::vector<std::uint32_t> p(codewords * cw_n);
        for (std::size_t i = 0; i < p.size(); i++)
            p[i] = coded->position(i);
        positions = upload_as<std::uint32_t>(p);
        info_positions = upload(coded->encoder().info_positions());
        const std::size_t cws = F * codewords;
        for (slot& s : slots) {
            s.decoder = std::make_unique<gpu_ldpc_decoder>(coded->code(), config.decoder, cws, device);
            s.codeword_llr = gc::device_buffer<float>(cws * cw_n);
            s.codeword_bits = gc::device_buffer<std::uint8_t>(cws * cw_n);
            s.satisfied = gc::device_buffer<std::uint8_t>(cws);
            s.info = gc::device_buffer<std::uint8_t>(cws * cw_k);
            s.iterations = gc::device_buffer<int>(cws);
            s.raw_errors = gc::device_buffer<int>(cws);
            s.host_info = gc::pinned_buffer<std::uint8_t>(cws * cw_k);
            s.host_satisfied = gc::pinned_buffer<std::uint8_t>(cws);
            s.host_iterations = gc::pinned_buffer<int>(cws);
            s.host_raw_errors = gc::pinned_buffer<int>(cws);
        }
    }

    static void check(const fused_receiver_config& c, std::size_t frames, int nslots)
    {
        if (frames < 1 || frames * std::size_t(c.rx) > 64)
            throw std::invalid_argument(
                "gpu_fused_receiver: frames_per_chunk x rx must be 1..64 (the FFT's "
                "channels)");
        if (nslots < 1 || nslots > 8)
            throw std::invalid_argument("gpu_fused_receiver: slots must be 1..8");
    }

    // Hands an ended chunk's results to the caller (the ring waited for it).
    void land(const slot& s)
    {
        if (s.decoded) {
            const std::size_t cws = s.frames * codewords;
            std::memcpy(out_info + s.first_frame * codewords * cw_k, s.host_info.get(), cws * cw_k);
            for (std::size_t c = 0; c < cws; c++) {
                decode_sum.codewords++;
                decode_sum.iterations += std::uint64_t(s.host_iterations.get()[c]);
                if (s.host_satisfied.get()[c]) {
                    decode_sum.satisfied++;
                    decode_sum.raw_errors += std::uint64_t(s.host_raw_errors.get()[c]);
                    decode_sum.raw_bits += cw_n;
                }
            }
        } else if (!s.llr_landed) {
            std::memcpy(out_llr + s.first_frame * bits, s.host_llr.get(), s.frames * bits * sizeof(float));
        }
        for (std::size_t f = 0; f < s.frames; f++) {
            report.damaged_frames += s.host_damaged.get()[f] != 0;
            if (out_noise)
                out_noise[s.first_frame + f] = s.host_damaged.get()[f] ? 0.0f : s.host_noise.get()[f];
        }
    }

    // Enqueues one chunk on st (its slot's stream); the caller commits it.
    void run_chunk(slot& s,
                   cudaStream_t st,
                   const std::complex<float>* const* in,
                   std::size_t first,
                   std::size_t nf)
    {
        const int rx = config.rx, U = L.carriers;
        // Into the slot's pinned buffer, [antenna][slot][sample], then one copy per
        // antenna; input already on the device goes straight to the slot.
        for (int a = 0; a < rx; a++) {
            if (device_input) {
                GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(s.samples.get() + std::size_t(a) * F * samples_per_frame,
                                                   in[a] + first * samples_per_frame,
                                                   nf * samples_per_frame * sizeof(float2),
                                                   cudaMemcpyDeviceToDevice,
                                                   st));
                continue;
            }
            gc::copy_to_device_async(s.samples.get() + std::size_t(a) * F * samples_per_frame,
                                     in[a] + first * samples_per_frame,
                                     nf * samples_per_frame * sizeof(float2),
                                     s.host_samples.get() + std::size_t(a) * F * samples_per_frame, st);
        }
        GPUMIMO_CUDA_CHECK(cudaMemsetAsync(s.damaged.get(), 0, F * sizeof(int), st));
        ek::frame_finite_kernel<<<blocks_for(rx * nf * samples_per_frame), kThreads, 0, st>>>(
            s.samples.get(), samples_per_frame, int(F), int(nf), rx, s.damaged.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("frame_finite_kernel");

        ofdm_fft_io io; // every slot, used or not: the FFT's channel count is fixed
        io.in = s.samples.get();
        io.in_stride = samples_per_frame;
        io.out = s.carriers.get();
        io.out_stride = std::size_t(L.symbols) * U;
        io.nsym = std::size_t(L.symbols);
        fft.enqueue_device(io, st); // non-finite frames are flagged above, not counted here

        const int K = config.frame.streams;
        ek::estimate_kernel<<<blocks_for(nf * blocks * U), kThreads, 0, st>>>(
            s.carriers.get(), tables.pilots.get(), tables.cover.get(), s.damaged.get(), tables.block_start.get(),
            blocks, int(F), int(nf), rx, K, U, L.symbols, s.h.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("estimate_kernel");
        ek::noise_kernel<<<unsigned(nf * blocks), ek::kNoiseThreads, 0, st>>>(
            s.carriers.get(), s.damaged.get(), tables.empty.get(), tables.nempty, tables.block_start.get(), blocks,
            int(F), rx, K, U, L.symbols, s.noise.get(), s.noise_frame.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("noise_kernel");
        // Smoothed over frequency, each block as a frame; the per-carrier noise becomes
        // the effective noise.
        s.smoother->smooth_device(reinterpret_cast<std::complex<float>*>(s.h.get()), s.noise_frame.get(),
                                  nf * blocks, s.noise.get(), st);
        ek::track_phase_kernel<<<dim3(unsigned(L.payload), unsigned(nf)), ek::kTrackThreads, 0, st>>>(
            s.carriers.get(), s.h.get(), tables.track.get(), tables.track_pilots.get(), tables.ntrack, int(F), rx,
            K, U, L.symbols, tables.payload_index.get(), tables.weight_before.get(), tables.weight.get(), blocks,
            L.payload, s.track_z.get(), s.track_energy.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("track_phase_kernel");
        ek::phase_decision_kernel<<<unsigned(nf), ek::kTrackThreads, 0, st>>>(
            s.track_z.get(), s.track_energy.get(), s.noise_frame.get(), blocks, s.damaged.get(), rx, L.payload,
            s.derot.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("phase_decision_kernel");
        if (blocks == 1) {
            data_carrier_kernel<<<blocks_for(nf * L.data), kThreads, 0, st>>>(
                s.h.get(), s.noise.get(), data.get(), int(nf), L.data, U, rx * K, s.h_data.get(),
                s.noise_data.get());
            GPUMIMO_CUDA_CHECK_LAUNCH("data_carrier_kernel");
        } else {
            interpolate_kernel<<<blocks_for(nf * L.payload_vectors()), kThreads, 0, st>>>(
                s.h.get(), s.noise.get(), s.noise_frame.get(), data.get(), tables.weight_before.get(),
                tables.weight.get(), int(nf), blocks, L.data, U, L.payload, K, rx * K, s.h_data.get(),
                s.noise_data.get());
            GPUMIMO_CUDA_CHECK_LAUNCH("interpolate_kernel");
        }
        gather_payload_kernel<<<blocks_for(nf * L.payload_vectors()), kThreads, 0, st>>>(
            s.carriers.get(), s.damaged.get(), data.get(), s.derot.get(), int(F), int(nf), rx, L.data, U,
            L.symbols, tables.payload_index.get(), L.payload, s.y.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("gather_payload_kernel");

        // The detector on one stream for every slot: its workspaces are per detector.
        GPUMIMO_CUDA_CHECK(cudaEventRecord(s.ready.get(), st));
        const cudaStream_t ds = detect_stream->get();
        GPUMIMO_CUDA_CHECK(cudaStreamWaitEvent(ds, s.ready.get(), 0));
        mimo_batch b;
        b.y = reinterpret_cast<const cf32*>(s.y.get());
        b.h = reinterpret_cast<const cf32*>(s.h_data.get());
        b.noise_var = s.noise_data.get();
        b.scalar_noise = false;
        b.batch = nf * L.payload_vectors();
        b.nt = config.frame.streams;
        b.nr = rx;
        b.group = blocks > 1 ? 1 : std::size_t(L.payload); // one H per vector, or per carrier
        detector.detect_device(b, s.detected.get(), ds);
        GPUMIMO_CUDA_CHECK(cudaEventRecord(s.detect_done.get(), ds));
        GPUMIMO_CUDA_CHECK(cudaStreamWaitEvent(st, s.detect_done.get(), 0));

        scatter_llr_kernel<<<blocks_for(nf * bits), kThreads, 0, st>>>(
            s.detected.get(), s.damaged.get(), int(nf), L.data, L.payload, L.bits_per_vector,
            s.llr.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("scatter_llr_kernel");
        s.decoded = decoding;
        s.llr_landed = false;
        if (decoding) {
            decode_chunk(s, st, nf);
        } else {
            // Straight into the caller's page-locked output (a block's registered stream
            // buffer), else through the slot's pinned buffer and a copy in land().
            float* const out = out_llr + first * bits;
            s.llr_landed = gc::is_pinned_range(out, nf * bits * sizeof(float));
            GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(s.llr_landed ? out : s.host_llr.get(), s.llr.get(),
                                               nf * bits * sizeof(float), cudaMemcpyDeviceToHost, st));
        }
        // Each frame's N0: its first block's (the preamble's noise, every block the same
        // but for the floor).
        GPUMIMO_CUDA_CHECK(cudaMemcpy2DAsync(s.host_noise.get(), sizeof(float), s.noise_frame.get(),
                                             std::size_t(blocks) * sizeof(float), sizeof(float), nf,
                                             cudaMemcpyDeviceToHost, st));
        GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(s.host_damaged.get(), s.damaged.get(), nf * sizeof(int),
                                           cudaMemcpyDeviceToHost, st));
        s.first_frame = first;
        s.frames = nf;
    }

    // The chunk's LLRs (s.llr) decoded on st; the information bits and counts copied out.
    void decode_chunk(slot& s, cudaStream_t st, std::size_t nf)
    {
        const std::size_t cws = nf * codewords, coded_bits = codewords * cw_n;
        fused_decoding::deinterleave_kernel<<<blocks_for(nf * coded_bits), kThreads, 0, st>>>(
            s.llr.get(), positions.get(), int(nf), int(bits), int(coded_bits), s.codeword_llr.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("deinterleave_kernel");
        ldpc_outputs out;
        out.bits = s.codeword_bits.get();
        out.satisfied = s.satisfied.get();
        out.iterations = s.iterations.get();
        s.decoder->decode_device(s.codeword_llr.get(), cws, out, st);
        fused_decoding::finish_decode_kernel<<<unsigned(cws), kThreads, 0, st>>>(
            s.codeword_llr.get(), s.codeword_bits.get(), s.satisfied.get(), info_positions.get(),
            int(cw_n), int(cw_k), s.info.get(), s.raw_errors.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("finish_decode_kernel");
        auto back = [st](void* host, const void* dev, std::size_t bytes) {
            GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, st));
        };
        back(s.host_info.get(), s.info.get(), cws * cw_k);
        back(s.host_satisfied.get(), s.satisfied.get(), cws);
        back(s.host_iterations.get(), s.iterations.get(), cws * sizeof(int));
        back(s.host_raw_errors.get(), s.raw_errors.get(), cws * sizeof(int));
    }

    fused_receiver_report process(const std::complex<float>* const* in,
                                  std::size_t frames,
                                  float* llr,
                                  float* noise_var,
                                  bool on_device = false)
    {
        decoding = false;
        device_input = on_device;
        return run(in, frames, llr, noise_var);
    }

    fused_receiver_report process_decoded(const std::complex<float>* const* in,
                                          std::size_t frames,
                                          std::uint8_t* info,
                                          fused_decode_report* decoded,
                                          float* noise_var)
    {
        if (!coded)
            throw std::logic_error("gpu_fused_receiver::process_decoded: the configuration "
                                   "names no code");
        decoding = true;
        device_input = false;
        out_info = info;
        decode_sum = fused_decode_report();
        const fused_receiver_report r = run(in, frames, nullptr, noise_var);
        if (decoded)
            *decoded = decode_sum;
        return r;
    }

    fused_receiver_report run(const std::complex<float>* const* in,
                              std::size_t frames,
                              float* llr,
                              float* noise_var)
    {
        report = fused_receiver_report();
        if (frames == 0)
            return report;
        const gc::device_guard keep;
        GPUMIMO_CUDA_CHECK(cudaSetDevice(device));
        out_llr = llr;
        out_noise = noise_var;
        const auto land_slot = [&](std::size_t k) { land(slots[k]); };
        try {
            for (std::size_t f0 = 0; f0 < frames; f0 += F) {
                const std::size_t k = ring->next(land_slot);
                run_chunk(slots[k], ring->stream(k), in, f0, std::min(F, frames - f0));
                ring->commit(k);
            }
            ring->finish(land_slot);
        } catch (...) {
            // Nothing of this call may land later in caller memory: the slots' streams
            // and the detector's (which the slots' chunks fork onto) all end first.
            ring->abandon();
            (void)cudaDeviceSynchronize(); // failing already: the first error is the one told
            throw;
        }
        try {
            detector.check_device_errors(detect_stream->get());
        } catch (const std::invalid_argument&) {
            report.unusable_estimates++;
        }
        return report;
    }
};

gpu_fused_receiver::gpu_fused_receiver(const fused_receiver_config& config,
                                       int device,
                                       std::size_t frames_per_chunk,
                                       int slots)
    : d_impl(std::make_unique<impl>(config, device, frames_per_chunk, slots))
{
}
gpu_fused_receiver::~gpu_fused_receiver() = default;
const fused_receiver_config& gpu_fused_receiver::config() const { return d_impl->config; }
std::size_t gpu_fused_receiver::bits_per_frame() const { return d_impl->bits; }
std::size_t gpu_fused_receiver::frames_per_chunk() const { return d_impl->F; }
std::size_t gpu_fused_receiver::info_bits_per_frame() const
{
    return d_impl->coded ? d_impl->coded->info_bits() : 0;
}
fused_receiver_report gpu_fused_receiver::process_decoded(const std::complex<float>* const* in,
                                                          std::size_t frames,
                                                          std::uint8_t* info,
                                                          fused_decode_report* decoded,
                                                          float* noise_var)
{
    return d_impl->process_decoded(in, frames, info, decoded, noise_var);
}
fused_receiver_report gpu_fused_receiver::process(const std::complex<float>* const* in,
                                                  std::size_t frames,
                                                  float* llr,
                                                  float* noise_var)
{
    return d_impl->process(in, frames, llr, noise_var);
}
fused_receiver_report gpu_fused_receiver::process_device(const std::complex<float>* const* in,
                                                         std::size_t frames,
                                                         float* llr,
                                                         float* noise_var)
{
    return d_impl->process(in, frames, llr, noise_var, true);
}

namespace detail {
namespace {
// gpu_fused_receiver as the factory's GPU engine (make_fused_receiver_engine).
class gpu_fused_engine : public fused_receiver_engine
{
public:
    gpu_fused_engine(const fused_receiver_config& c, int device) : d_rx(c, device) {}
    const char* backend() const override { return "cuda"; }
    fused_receiver_report process(const std::complex<float>* const* in,
                                  std::size_t frames,
                                  float* llr,
                                  float* noise_var) override
    {
        return d_rx.process(in, frames, llr, noise_var);
    }
    fused_receiver_report process_decoded(const std::complex<float>* const* in,
                                          std::size_t frames,
                                          std::uint8_t* info,
                                          fused_decode_report* decoded,
                                          float* noise_var) override
    {
        return d_rx.process_decoded(in, frames, info, decoded, noise_var);
    }

private:
    gpu_fused_receiver d_rx;
};
} // namespace

std::unique_ptr<fused_receiver_engine>
make_gpu_fused_receiver_engine(const fused_receiver_config& c, int device, std::string*)
{
    return std::make_unique<gpu_fused_engine>(c, device);
}
} // namespace detail

} // namespace core
} // namespace gpumimo
} // namespace gr
