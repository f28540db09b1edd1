/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A frame's channel estimation on the device, shared by the fused receiver
 * (gpu_fused_receiver.cu) and mimo_chanest's GPU engine (gpu_chanest_engine.cu): the
 * least-squares estimates, the noise variance, the tracking pilots' common phase and
 * the payload turned back by it. The CPU references are core::estimate_channel and
 * core::phase_tracker (lib/core/frame).
 *
 * The carriers of a chunk of `slots` frame slots (the first `used` of them filled):
 *   carriers [antenna][slot][symbol][carrier]   (U used carriers, `symbols` a frame)
 *   damaged  [slot]                             (1: the frame's estimates are not made;
 *                                                set by frame_finite_kernel)
 *   h        [slot][block][carrier][rx][tx],  noise [slot][block][carrier],
 *   noise_frame [slot][block]                   (pilot blocks: frame_format::pilot_blocks(),
 *                                                1 without time tracking)
 *   z, energy [slot][payload symbol][antenna]    (the tracking pilots' sums)
 *   derot    [slot][payload symbol][antenna]    (e^{-i phi})
 */
#pragma once

#include "common/device_memory.cuh"
#include "common/gpu_math.cuh"

#include <gnuradio/gpumimo/core/frame/frame_receiver.h>
#include <gnuradio/gpumimo/core/frame/estimation/phase_tracker.h>
#include <gnuradio/gpumimo/core/frame/estimation/time_tracking.h>

#include <complex>
#include <cstddef>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {
namespace estimation_kernels {
namespace { // each translation unit its own kernels

// The tables the kernels read, for frames of one format, uploaded to the current
// device: pilots [tx][carrier], cover [symbol][tx] (the pilots' orthogonal cover), the
// preamble's empty carriers (the noise samples), the tracking carriers and their pilots;
// where the pilot blocks start and each payload symbol's OFDM symbol and interpolation
// weights (core/frame/estimation/time_tracking.h).
struct estimation_tables {
    estimation_tables() = default;
    explicit estimation_tables(const frame_format& frame)
    {
        const int tx = frame.streams;
        blocks = frame.pilot_blocks();
        std::vector<int> starts, index, before;
        std::vector<float> weights;
        for (int b = 0; b < blocks; b++)
            starts.push_back(frame.pilot_block_start(b));
        for (const time_weight& t : time_weights(frame)) {
            before.push_back(t.before);
            weights.push_back(t.w);
        }
        for (int s = 0; s < frame.payload_symbols; s++)
            index.push_back(frame.payload_symbol_index(s));
        block_start = cuda::upload(starts);
        payload_index = cuda::upload(index);
        weight_before = cuda::upload(before);
        weight = cuda::upload(weights);
        std::vector<std::complex<float>> p;
        for (int k = 0; k < tx; k++) {
            const std::vector<std::complex<float>> pk = pilot_carriers(frame.num, k);
            p.insert(p.end(), pk.begin(), pk.end());
        }
        pilots = cuda::upload_as<float2>(p);
        std::vector<std::complex<float>> w;
        for (int s = 0; s < tx; s++)
            for (int k = 0; k < tx; k++)
                w.push_back(pilot_cover(tx, s, k));
        cover = cuda::upload_as<float2>(w);
        const std::vector<int> odd = preamble_empty_carriers(frame.num);
        nempty = int(odd.size());
        empty = cuda::upload(odd);
        const phase_tracker tracker(frame);
        ntrack = int(tracker.carriers().size());
        track = cuda::upload(tracker.carriers());
        track_pilots = cuda::upload_as<float2>(tracker.pilots());
    }

    cuda::device_buffer<float2> pilots, cover, track_pilots;
    cuda::device_buffer<int> empty, track, block_start, payload_index, weight_before;
    cuda::device_buffer<float> weight;
    int nempty = 0, ntrack = 0, blocks = 1;
};

// Threads of the kernels that reduce within a block: noise_kernel has a block per frame
// (so a whole block of threads), track_phase_kernel one per payload symbol and frame.
constexpr int kNoiseThreads = 1024;
constexpr int kTrackThreads = 256;

// interpolate_estimate's mix of two estimates' H values, (1 - w) a + w b with v = 1 - w,
// in float without contractions as on the CPU.
__device__ inline float2 mix_h(float v, float w, float2 a, float2 b)
{
    return make_float2(__fadd_rn(__fmul_rn(v, a.x), __fmul_rn(w, b.x)),
                       __fadd_rn(__fmul_rn(v, a.y), __fmul_rn(w, b.y)));
}

// interpolate_estimate's effective noise between two blocks: their error variances
// (noise - N0) / tx mixed with v^2 and w^2, N0 as H, then N0 + tx times the error.
__device__ inline float mix_noise(float v, float w, float noise_a, float noise_b, float n0a, float n0b, int tx)
{
    const float ea = (noise_a - n0a) / tx, eb = (noise_b - n0b) / tx;
    const float ev = v * v * ea + w * w * eb, n0 = v * n0a + w * n0b;
    return float(double(n0) + double(tx) * double(ev));
}

// Marks slot f damaged when one of its values on any antenna is not usable
// (cuda::usable2: NaN, Inf or beyond max_sample_magnitude); per_slot values a slot,
// [antenna][slot][value].
__global__ void frame_finite_kernel(const float2* samples,
                                    std::size_t per_slot,
                                    int slots,
                                    int used,
                                    int antennas,
                                    int* damaged)
{
    const std::size_t total = std::size_t(antennas) * used * per_slot;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < total;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const std::size_t t = i % per_slot, af = i / per_slot;
        const int f = int(af % used), a = int(af / used);
        if (!gpumimo::cuda::usable2(samples[(std::size_t(a) * slots + f) * per_slot + t]))
            damaged[f] = 1; // racing writers all write 1
    }
}

// h[f][b][c][r][k] = (1/Nt) sum_s conj(w_sk) Y_{t_b+s}(c) / P_k(c) on antenna r, w the
// pilots' orthogonal cover, t_b pilot block b's first symbol (estimate_channel).
__global__ void estimate_kernel(const float2* carriers,
                                const float2* pilots, // [tx][carrier]
                                const float2* cover,  // [symbol][tx]
                                const int* damaged,
                                const int* block_start, // [blocks]
                                int blocks,
                                int slots,
                                int used,
                                int rx,
                                int tx,
                                int U,
                                int symbols,
                                float2* h)
{
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= std::size_t(used) * blocks * U)
        return;
    const int c = int(i % U), f = int(i / U / blocks), first = block_start[(i / U) % blocks];
    for (int r = 0; r < rx; r++)
        for (int k = 0; k < tx; k++) {
            if (damaged[f]) { // an identity the detector takes without complaint; the
                              // frame's LLRs are zeroed after it
                h[(i * rx + r) * tx + k] = make_float2(r == k ? 1.0f : 0.0f, 0.0f);
                continue;
            }
            float2 z = make_float2(0, 0);
            for (int s = 0; s < tx; s++) {
                const float2 y = carriers[((std::size_t(r) * slots + f) * symbols + first + s) * U + c];
                const float2 w = cover[s * tx + k];
                z.x += w.x * y.x + w.y * y.y; // conj(w) y
                z.y += w.x * y.y - w.y * y.x;
            }
            const float2 p = pilots[std::size_t(k) * U + c];
            const float d = p.x * p.x + p.y * p.y;
            h[(i * rx + r) * tx + k] =
                make_float2((z.x * p.x + z.y * p.y) / (d * tx), (z.y * p.x - z.x * p.y) / (d * tx));
        }
}

// One block per frame and pilot block: the mean power of the preamble's empty carriers
// over the antennas, floored at the pilot block's mean power over
// core::max_estimated_snr (as core::estimate_channel), written for every carrier (the
// detector's per-channel N0).
__global__ void noise_kernel(const float2* carriers,
                             const int* damaged,
                             const int* empty, // the preamble's empty carrier indices
                             int nempty,
                             const int* block_start,
                             int blocks,
                             int slots,
                             int rx,
                             int streams,
                             int U,
                             int symbols,
                             float* noise_per_carrier,
                             float* noise_per_frame)
{
    __shared__ float partial[kNoiseThreads], pilot_partial[kNoiseThreads];
    const int f = blockIdx.x / blocks, first = block_start[blockIdx.x % blocks];
    float acc = 0, pilot_acc = 0;
    for (int i = threadIdx.x; i < nempty * rx; i += blockDim.x) {
        const int r = i / nempty, c = empty[i % nempty];
        const float2 y = carriers[((std::size_t(r) * slots + f) * symbols) * U + c];
        acc += y.x * y.x + y.y * y.y;
    }
    for (int i = threadIdx.x; i < rx * streams * U; i += blockDim.x) {
        const int r = i / (streams * U), k = (i / U) % streams, c = i % U;
        const float2 y = carriers[((std::size_t(r) * slots + f) * symbols + first + k) * U + c];
        pilot_acc += y.x * y.x + y.y * y.y;
    }
    partial[threadIdx.x] = acc;
    pilot_partial[threadIdx.x] = pilot_acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) {
            partial[threadIdx.x] += partial[threadIdx.x + s];
            pilot_partial[threadIdx.x] += pilot_partial[threadIdx.x + s];
        }
        __syncthreads();
    }
    const float floor = float(double(pilot_partial[0]) / (double(rx) * streams * U) /
                              core::max_estimated_snr);
    const float n0 =
        damaged[f] ? 1.0f : fmaxf(partial[0] / float(max(1, nempty * rx)), floor);
    for (int c = threadIdx.x; c < U; c += blockDim.x)
        noise_per_carrier[std::size_t(blockIdx.x) * U + c] = n0;
    if (threadIdx.x == 0)
        noise_per_frame[blockIdx.x] = n0;
}

// The tracking pilots' sums of every payload symbol and antenna (core::phase_tracker):
// one block per (payload symbol, frame); z[f][s][r] = sum over the tracking carriers of
// conj((H_c p_c)_r) y_{r,s,c} and energy[f][s][r] = sum |(H_c p_c)_r|^2, in double as
// the reference; H_c the symbol's, (1 - w) block `before`'s + w the next's (one block:
// w = 0).
__global__ void track_phase_kernel(const float2* carriers,
                                   const float2* h,
                                   const int* track,
                                   const float2* track_pilots,
                                   int ntrack,
                                   int slots,
                                   int rx,
                                   int K,
                                   int U,
                                   int symbols,
                                   const int* payload_index, // [payload]: OFDM symbol
                                   const int* weight_before, // [payload]
                                   const float* weight,      // [payload]
                                   int blocks,
                                   int payload,
                                   double2* z,
                                   double* energy)
{
    __shared__ double2 part[kTrackThreads];
    __shared__ double epart[kTrackThreads];
    const int s = blockIdx.x, f = blockIdx.y;
    const int symbol = payload_index[s], before = weight_before[s];
    const float w = weight[s], v = 1 - w;
    const std::size_t next = std::size_t(U) * rx * K; // the next block's
    for (int r = 0; r < rx; r++) {
        double2 acc = make_double2(0, 0);
        double e = 0;
        for (int j = threadIdx.x; j < ntrack; j += blockDim.x) {
            const int c = track[j];
            const float2* hc = h + ((std::size_t(f * blocks + before) * U + c) * rx + r) * K;
            double er = 0, ei = 0; // (H_c p_c)_r
            for (int k = 0; k < K; k++) {
                const float2 p = track_pilots[j * K + k];
                float2 a = hc[k];
                if (w != 0)
                    a = mix_h(v, w, a, hc[next + k]);
                er += double(a.x) * p.x - double(a.y) * p.y;
                ei += double(a.x) * p.y + double(a.y) * p.x;
            }
            const float2 y = carriers[((std::size_t(r) * slots + f) * symbols + symbol) * U + c];
            acc.x += er * y.x + ei * y.y; // conj(e) y
            acc.y += er * y.y - ei * y.x;
            e += er * er + ei * ei;
        }
        part[threadIdx.x] = acc;
        epart[threadIdx.x] = e;
        __syncthreads();
        for (int n = blockDim.x / 2; n > 0; n /= 2) {
            if (threadIdx.x < n) {
                part[threadIdx.x].x += part[threadIdx.x + n].x;
                part[threadIdx.x].y += part[threadIdx.x + n].y;
                epart[threadIdx.x] += epart[threadIdx.x + n];
            }
            __syncthreads();
        }
        if (threadIdx.x == 0) {
            z[(std::size_t(f) * payload + s) * rx + r] = part[0];
            energy[(std::size_t(f) * payload + s) * rx + r] = epart[0];
        }
        __syncthreads(); // before the next antenna's sums overwrite part
    }
}

// e^{-i phi} as phase_tracker::finish gives it: conj(z) / |z|, 1 where z is zero or
// not finite.
__device__ inline float2 unit_conj(double2 z)
{
    const double a = hypot(z.x, z.y);
    return a > 0 && isfinite(a) ? make_float2(float(z.x / a), float(-z.y / a)) : make_float2(1, 0);
}

// One block per frame: phase_tracker::finish's test (per_antenna_term summed over the
// frame's symbols and antennas, against per_antenna_threshold) and every symbol's and
// antenna's derotation, derot[f][s][r]: the antenna's own phase where the frame's
// antennas differ, the symbol's common phase otherwise; damaged frames 1. n0: the
// frame's first pilot block's N0 (noise_frame [slot][block]).
__global__ void phase_decision_kernel(const double2* z,
                                      const double* energy,
                                      const float* n0_block,
                                      int blocks,
                                      const int* damaged,
                                      int rx,
                                      int payload,
                                      float2* derot)
{
    __shared__ double tpart[kTrackThreads];
    __shared__ int dpart[kTrackThreads];
    const int f = blockIdx.x;
    const double n0 = n0_block[std::size_t(f) * blocks];
    const double2* zf = z + std::size_t(f) * payload * rx;
    const double* ef = energy + std::size_t(f) * payload * rx;
    double t = 0;
    int dof = 0;
    for (int s = threadIdx.x; s < payload; s += blockDim.x) {
        double2 Z = make_double2(0, 0);
        for (int r = 0; r < rx; r++) {
            Z.x += zf[s * rx + r].x;
            Z.y += zf[s * rx + r].y;
        }
        int seen = 0;
        for (int r = 0; r < rx; r++) {
            const double2 zr = zf[s * rx + r];
            const double a = hypot(zr.x, zr.y);
            if (!(ef[s * rx + r] > 0) || !(a > 0) || !isfinite(a))
                continue;
            t += core::per_antenna_term(zr.x, zr.y, Z.x, Z.y, ef[s * rx + r], n0);
            seen++;
        }
        dof += max(0, seen - 1);
    }
    tpart[threadIdx.x] = t;
    dpart[threadIdx.x] = dof;
    __syncthreads();
    for (int n = blockDim.x / 2; n > 0; n /= 2) {
        if (threadIdx.x < n) {
            tpart[threadIdx.x] += tpart[threadIdx.x + n];
            dpart[threadIdx.x] += dpart[threadIdx.x + n];
        }
        __syncthreads();
    }
    const double T = tpart[0];
    const int D = dpart[0];
    const bool per_antenna = D > 0 && n0 > 0 && isfinite(T) && T > core::per_antenna_threshold(D);
    for (int s = threadIdx.x; s < payload; s += blockDim.x) {
        double2 Z = make_double2(0, 0);
        for (int r = 0; r < rx; r++) {
            Z.x += zf[s * rx + r].x;
            Z.y += zf[s * rx + r].y;
        }
        for (int r = 0; r < rx; r++)
            derot[(std::size_t(f) * payload + s) * rx + r] =
                damaged[f] ? make_float2(1, 0) : unit_conj(per_antenna ? zf[s * rx + r] : Z);
    }
}

// payload[r][f][s][c] = carrier c of frame f's payload symbol s (OFDM symbol
// payload_index[s]) on antenna r, turned back by the symbol's phase on that antenna:
// what mimo_chanest passes on.
__global__ void derotate_payload_kernel(const float2* carriers,
                                        const float2* derot,
                                        int slots,
                                        int used,
                                        int rx,
                                        int U,
                                        int symbols,
                                        const int* payload_index,
                                        int payload,
                                        float2* out)
{
    const std::size_t total = std::size_t(rx) * used * payload * U;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < total;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const int c = int(i % U);
        const std::size_t rest = i / U; // (r * used + f) * payload + s
        const int s = int(rest % payload), f = int((rest / payload) % used),
                  r = int(rest / (std::size_t(payload) * used));
        const float2 x =
            carriers[((std::size_t(r) * slots + f) * symbols + payload_index[s]) * U + c];
        const float2 w = derot[(std::size_t(f) * payload + s) * rx + r];
        out[i] = make_float2(x.x * w.x - x.y * w.y, x.x * w.y + x.y * w.x);
    }
}

// Frames tracked in time, mimo_chanest's estimate records (core::estimate_items, per
// symbol): frame f's payload symbol s gets at records + f * record_stride + s * item_bytes
// its H on every used carrier and the detectors' noise per carrier, interpolated between
// the blocks around it (core::interpolate_estimate); damaged frames are left alone.
__global__ void interpolate_records_kernel(const float2* h,
                                           const float* noise,
                                           const float* noise_block, // [slot][block]: N0
                                           const int* damaged,
                                           const int* weight_before,
                                           const float* weight,
                                           int used,
                                           int blocks,
                                           int U,
                                           int payload,
                                           int tx,
                                           int m,
                                           unsigned char* records,
                                           std::size_t record_stride,
                                           std::size_t item_bytes)
{
    const std::size_t total = std::size_t(used) * payload * U;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < total;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const int c = int(i % U), s = int(i / U % payload), f = int(i / U / payload);
        if (damaged[f])
            continue;
        unsigned char* record = records + f * record_stride + s * item_bytes;
        float2* hr = reinterpret_cast<float2*>(record) + std::size_t(c) * m;
        float* nr = reinterpret_cast<float*>(record + std::size_t(U) * m * sizeof(float2));
        const std::size_t a = std::size_t(f * blocks + weight_before[s]), b = a + 1;
        const float w = weight[s], v = 1 - w;
        const float2* ha = h + (a * U + c) * m;
        if (w == 0) {
            for (int e = 0; e < m; e++)
                hr[e] = ha[e];
            nr[c] = noise[a * U + c];
            continue;
        }
        const float2* hb = h + (b * U + c) * m;
        for (int e = 0; e < m; e++)
            hr[e] = mix_h(v, w, ha[e], hb[e]);
        nr[c] = mix_noise(v, w, noise[a * U + c], noise[b * U + c], noise_block[a], noise_block[b], tx);
    }
}

} // namespace
} // namespace estimation_kernels
} // namespace core
} // namespace gpumimo
} // namespace gr
