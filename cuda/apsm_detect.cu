/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * APSM detection of all users at once (core::gpu_apsm_detector). One thread per
 * received vector holds its two real vectors (r1, r2) in registers; the block walks a
 * slice of the shared dictionary through shared memory, computes each entry's Gaussian
 * kernel values once and weights them by every user's coefficient. The dictionary is
 * cut into slices over gridDim.y so that a few thousand vectors still fill the GPU; the
 * slices' sums meet by atomicAdd in the zeroed output.
 *
 * Vectors are stored interleaved, [Re r_0, Im r_0, Re r_1, ...] for r1 and
 * [Im r_0, -Re r_0, ...] for r2, and the dictionary and linear filters with them:
 * distances and dot products do not depend on the order of the components, and the
 * interleaved order lets the register array be indexed by compile-time constants.
 */
#include "cuda_check.cuh"
#include "device_memory.cuh"

#include <gnuradio/gpumimo/core/gpu_apsm.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

constexpr int max_dim = 32;  // 16 antennas, two reals each
constexpr int max_users = 8;
constexpr int tile = 64;     // dictionary entries per shared-memory slice
constexpr int threads = 64;  // received vectors per block (r1 and r2 of each)
// The dictionary is cut into slices so that the grid is about blocks_per_sm deep on
// every multiprocessor, no slice under min_slice_entries. Measured on an H200 (3,840
// vectors, 6 users, kernel us, gr-gpumimo / library defaults, time recordings): depth 6
// 19.4 / 36.7, 8 19.5 / 35.4, 11 19.8 / 34.3, 16 23.0 / 38.0, 24 23.0 / 39.9.
constexpr int blocks_per_sm = 8;
constexpr int min_slice_entries = 16;
constexpr int max_slices = 64;

// 2^x by the special-function unit alone (relative error ~2^-22; results below 2^-126,
// far under any value the sums could notice, flush to 0): exp2f adds range handling.
__device__ float fast_exp2(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// A thread takes both real vectors of one received vector, r1 and r2: they have the
// same norm and meet every dictionary entry loaded once from shared memory. The squared
// distance is ||x||^2 + ||e||^2 - 2 x.e: one FMA per dimension instead of a difference
// and an FMA (the kernel is issue-bound). Its cancellation error is a few float ulps of
// ||x||^2 + ||e||^2, within the GPU tests' bound; clamped at 0. U: the number of users,
// so that no multiply-add goes to an absent user.
//
// Tried and measured slower (H200): the dot products x.e as tensor-core products
// (mma.sync m16n8k8 TF32, split into head and tail for float accuracy: three products
// per tile): correct, but 27.3 us against 23.6 (defaults) and 52.8 against 36.2
// (library defaults); the legacy TF32 MMA rate, tripled, bounds it.
template <int U>
__global__ void apsm_detect_kernel(const float2* __restrict__ rx,
                                   int n,
                                   int antennas,
                                   float scale,
                                   const float4* __restrict__ dict,
                                   const float* __restrict__ dict_norm,
                                   const float* __restrict__ coef,
                                   int entries,
                                   int slice_len,
                                   const float* __restrict__ lin,
                                   float wl,
                                   float wg,
                                   float neg_half_inv_var_log2e,
                                   float* __restrict__ soft)
{
    __shared__ float4 s_dict[tile][max_dim / 4];
    __shared__ float s_norm[tile];
    __shared__ float s_coef[tile][max_users];
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const bool active = t < n;

    float x1[max_dim], x2[max_dim]; // interleaved: [Re r_0, Im r_0, ...], [Im r_0, -Re r_0, ...]
    float norm = 0.0f;
#pragma unroll
    for (int d = 0; d < max_dim / 2; d++) {
        float2 r = (active && d < antennas) ? rx[std::size_t(t) * antennas + d]
                                            : make_float2(0.0f, 0.0f);
        r.x *= scale;
        r.y *= scale;
        x1[2 * d] = r.x;
        x1[2 * d + 1] = r.y;
        x2[2 * d] = r.y;
        x2[2 * d + 1] = -r.x;
        norm = fmaf(r.x, r.x, fmaf(r.y, r.y, norm));
    }

    float g1[U], g2[U];
#pragma unroll
    for (int u = 0; u < U; u++)
        g1[u] = g2[u] = 0.0f;
    const int first = blockIdx.y * slice_len;
    const int last = min(entries, first + slice_len);
    for (int base = first; base < last; base += tile) {
        const int count = min(tile, last - base);
        __syncthreads(); // the previous tile is used up
        for (int i = threadIdx.x; i < count * (max_dim / 4); i += blockDim.x)
            s_dict[i / (max_dim / 4)][i % (max_dim / 4)] =
                dict[std::size_t(base) * (max_dim / 4) + i];
        for (int i = threadIdx.x; i < count; i += blockDim.x)
            s_norm[i] = dict_norm[base + i];
        for (int i = threadIdx.x; i < count * max_users; i += blockDim.x)
            s_coef[i / max_users][i % max_users] = coef[std::size_t(base) * max_users + i];
        __syncthreads();
        for (int e = 0; e < count; e++) {
            // Two partial sums per dot product: four independent FMA chains of 16.
            float dot1a = 0.0f, dot1b = 0.0f, dot2a = 0.0f, dot2b = 0.0f;
#pragma unroll
            for (int q = 0; q < max_dim / 4; q++) {
                const float4 v = s_dict[e][q];
                dot1a = fmaf(v.x, x1[4 * q], dot1a);
                dot1b = fmaf(v.y, x1[4 * q + 1], dot1b);
                dot1a = fmaf(v.z, x1[4 * q + 2], dot1a);
                dot1b = fmaf(v.w, x1[4 * q + 3], dot1b);
                dot2a = fmaf(v.x, x2[4 * q], dot2a);
                dot2b = fmaf(v.y, x2[4 * q + 1], dot2b);
                dot2a = fmaf(v.z, x2[4 * q + 2], dot2a);
                dot2b = fmaf(v.w, x2[4 * q + 3], dot2b);
            }
            const float dot1 = dot1a + dot1b, dot2 = dot2a + dot2b;
            const float base2 = norm + s_norm[e];
            const float k1 =
                fast_exp2(fmaxf(fmaf(-2.0f, dot1, base2), 0.0f) * neg_half_inv_var_log2e);
            const float k2 =
                fast_exp2(fmaxf(fmaf(-2.0f, dot2, base2), 0.0f) * neg_half_inv_var_log2e);
#pragma unroll
            for (int u = 0; u < U; u++) {
                g1[u] = fmaf(s_coef[e][u], k1, g1[u]);
                g2[u] = fmaf(s_coef[e][u], k2, g2[u]);
            }
        }
    }
    if (!active)
        return;
#pragma unroll
    for (int u = 0; u < U; u++) {
        float v1 = wg * g1[u], v2 = wg * g2[u];
        if (blockIdx.y == 0) { // the linear part, once
            float dot1 = 0.0f, dot2 = 0.0f;
#pragma unroll
            for (int k = 0; k < max_dim; k++) {
                dot1 = fmaf(lin[u * max_dim + k], x1[k], dot1);
                dot2 = fmaf(lin[u * max_dim + k], x2[k], dot2);
            }
            v1 += wl * dot1;
            v2 += wl * dot2;
        }
        atomicAdd(&soft[2 * (std::size_t(u) * n + t)], v1);
        atomicAdd(&soft[2 * (std::size_t(u) * n + t) + 1], v2);
    }
}

// Component d of a [first half; second half] vector of dimension 2M, interleaved.
int interleaved(int d, int antennas) { return d < antennas ? 2 * d : 2 * (d - antennas) + 1; }

} // namespace

struct gpu_apsm_detector::impl {
    int device;
    int antennas, max_user_count, users = 0, entries = 0;
    int sms = 1; // multiprocessors of the device
    std::size_t max_entries, max_symbols;
    float scale = 1, wl = 0, wg = 0;
    float neg_half_inv_var = 0; // -1 / (2 sigma^2) in base 2 (times log2(e)), for exp2f
    cuda::device_buffer<float> dict, dict_norm, coef, lin;
    cuda::device_buffer<float2> rx;
    cuda::device_buffer<float> soft;
    cuda::stream stream;
    cuda::event start{ true }, stop{ true };
    float kernel_ms = 0;

    impl(int antennas_, int users_, std::size_t max_entries_, std::size_t max_symbols_, int device_)
        : device(device_),
          antennas(antennas_),
          max_user_count(users_),
          max_entries(max_entries_),
          max_symbols(max_symbols_)
    {
        if (users_ < 1 || users_ > max_users)
            throw std::invalid_argument("gpu_apsm_detector: 1 to 8 users");
        if (antennas < 1 || 2 * antennas > max_dim)
            throw std::invalid_argument("gpu_apsm_detector: 1 to 16 antennas");
        cuda::device_guard guard;
        GPUMIMO_CUDA_CHECK(cudaSetDevice(device));
        GPUMIMO_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        dict = cuda::device_buffer<float>(std::max<std::size_t>(1, max_entries * max_dim));
        dict_norm = cuda::device_buffer<float>(std::max<std::size_t>(1, max_entries));
        coef = cuda::device_buffer<float>(std::max<std::size_t>(1, max_entries * max_users));
        lin = cuda::device_buffer<float>(max_users * max_dim);
        rx = cuda::device_buffer<float2>(std::max<std::size_t>(1, max_symbols * antennas));
        soft = cuda::device_buffer<float>(std::max<std::size_t>(1, 2 * max_symbols * max_users));
    }

    void set_filters(const std::vector<apsm_filter>& f)
    {
        if (f.empty() || f.size() > std::size_t(max_user_count))
            throw std::invalid_argument("gpu_apsm_detector: 1 to " +
                                        std::to_string(max_user_count) + " users");
        for (const apsm_filter& u : f)
            if (u.antennas != antennas || u.input_scale != f[0].input_scale ||
                u.variance != f[0].variance || u.linear_weight != f[0].linear_weight ||
                u.gaussian_weight != f[0].gaussian_weight || u.dict != f[0].dict ||
                u.gauss.size() != f[0].gauss.size() || u.lin.size() != std::size_t(2 * antennas))
                throw std::invalid_argument(
                    "gpu_apsm_detector: the users' filters must come from one training set "
                    "with the same parameters (same antennas, scale, kernel, dictionary)");
        if (f[0].gauss.size() > max_entries)
            throw std::invalid_argument("gpu_apsm_detector: more dictionary entries than "
                                        "max_entries");

        // Entries no user weights add nothing: leave them out.
        const int dim = 2 * antennas;
        std::vector<float> h_dict, h_norm, h_coef;
        int count = 0;
        for (std::size_t e = 0; e < f[0].gauss.size(); e++) {
            bool used = false;
            for (const apsm_filter& u : f)
                used |= u.gauss[e] != 0;
            if (!used)
                continue;
            std::vector<float> entry(max_dim, 0.0f), c(max_users, 0.0f);
            for (int d = 0; d < dim; d++)
                entry[interleaved(d, antennas)] = f[0].dict[e * dim + d];
            for (std::size_t u = 0; u < f.size(); u++)
                c[u] = float(f[u].gauss[e]);
            float norm = 0.0f; // as the kernel sums ||x||^2: float, in antenna order
            for (int m = 0; m < antennas; m++)
                norm = std::fma(entry[2 * m], entry[2 * m], std::fma(entry[2 * m + 1], entry[2 * m + 1], norm));
            h_dict.insert(h_dict.end(), entry.begin(), entry.end());
            h_norm.push_back(norm);
            h_coef.insert(h_coef.end(), c.begin(), c.end());
            count++;
        }
        std::vector<float> h_lin(max_users * max_dim, 0.0f);
        for (std::size_t u = 0; u < f.size(); u++)
            for (int d = 0; d < dim; d++)
                h_lin[u * max_dim + interleaved(d, antennas)] = float(f[u].lin[d]);

        cuda::device_guard guard;
        GPUMIMO_CUDA_CHECK(cudaSetDevice(device));
        if (!h_dict.empty()) {
            GPUMIMO_CUDA_CHECK(cudaMemcpy(dict.get(), h_dict.data(), h_dict.size() * 4,
                                          cudaMemcpyHostToDevice));
            GPUMIMO_CUDA_CHECK(cudaMemcpy(dict_norm.get(), h_norm.data(), h_norm.size() * 4,
                                          cudaMemcpyHostToDevice));
            GPUMIMO_CUDA_CHECK(cudaMemcpy(coef.get(), h_coef.data(), h_coef.size() * 4,
                                          cudaMemcpyHostToDevice));
        }
        GPUMIMO_CUDA_CHECK(cudaMemcpy(lin.get(), h_lin.data(), h_lin.size() * 4,
                                      cudaMemcpyHostToDevice));
        users = int(f.size());
        entries = count;

        scale = float(f[0].input_scale);
        wl = float(f[0].linear_weight);
        wg = float(f[0].gaussian_weight);
        neg_half_inv_var = float(-0.5 / f[0].variance * 1.4426950408889634); // exp2f's
    }
};

gpu_apsm_detector::gpu_apsm_detector(const std::vector<apsm_filter>& users,
                                     std::size_t max_symbols,
                                     int device)
{
    if (users.empty())
        throw std::invalid_argument("gpu_apsm_detector: 1 to 8 users");
    // The stream and events belong to the device current at their creation.
    cuda::device_guard guard;
    GPUMIMO_CUDA_CHECK(cudaSetDevice(device));
    d_impl = std::make_unique<impl>(
        users[0].antennas, int(users.size()), users[0].gauss.size(), max_symbols, device);
    d_impl->set_filters(users);
}

gpu_apsm_detector::gpu_apsm_detector(
    int antennas, int users, std::size_t max_entries, std::size_t max_symbols, int device)
{
    cuda::device_guard guard;
    GPUMIMO_CUDA_CHECK(cudaSetDevice(device));
    d_impl = std::make_unique<impl>(antennas, users, max_entries, max_symbols, device);
}

gpu_apsm_detector::~gpu_apsm_detector() = default;

void gpu_apsm_detector::set_filters(const std::vector<apsm_filter>& users)
{
    d_impl->set_filters(users);
}

int gpu_apsm_detector::users() const { return d_impl->users; }

float gpu_apsm_detector::last_kernel_ms() const { return d_impl->kernel_ms; }

void gpu_apsm_detector::detect(const std::complex<float>* rx,
                               std::size_t n,
                               std::complex<float>* soft)
{
    impl& d = *d_impl;
    if (n > d.max_symbols)
        throw std::invalid_argument("gpu_apsm_detector::detect: more symbols than max_symbols");
    if (d.users == 0)
        throw std::logic_error("gpu_apsm_detector::detect: no filters (set_filters)");
    if (n == 0)
        return;
    cuda::device_guard guard;
    GPUMIMO_CUDA_CHECK(cudaSetDevice(d.device));
    const cudaStream_t s = d.stream.get();
    GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(
        d.rx.get(), rx, n * d.antennas * sizeof(float2), cudaMemcpyHostToDevice, s));
    const std::size_t out_floats = 2 * n * d.users;
    GPUMIMO_CUDA_CHECK(cudaMemsetAsync(d.soft.get(), 0, out_floats * sizeof(float), s));
    GPUMIMO_CUDA_CHECK(cudaEventRecord(d.start.get(), s));
    const int blocks_x = int((n + threads - 1) / threads);
    const int slices = std::max(
        1, std::min({ max_slices, (blocks_per_sm * d.sms + blocks_x - 1) / blocks_x,
                      (d.entries + min_slice_entries - 1) / min_slice_entries }));
    const int slice_len = (d.entries + slices - 1) / slices;
    const dim3 grid{ unsigned(blocks_x), unsigned(slices) };
    auto launch = [&](auto kernel) {
        kernel<<<grid, threads, 0, s>>>(
            d.rx.get(), int(n), d.antennas, d.scale,
            reinterpret_cast<const float4*>(d.dict.get()), d.dict_norm.get(), d.coef.get(),
            d.entries, std::max(1, slice_len), d.lin.get(), d.wl, d.wg, d.neg_half_inv_var,
            d.soft.get());
    };
    switch (d.users) {
    case 1: launch(apsm_detect_kernel<1>); break;
    case 2: launch(apsm_detect_kernel<2>); break;
    case 3: launch(apsm_detect_kernel<3>); break;
    case 4: launch(apsm_detect_kernel<4>); break;
    case 5: launch(apsm_detect_kernel<5>); break;
    case 6: launch(apsm_detect_kernel<6>); break;
    case 7: launch(apsm_detect_kernel<7>); break;
    default: launch(apsm_detect_kernel<max_users>); break;
    }
    GPUMIMO_CUDA_CHECK_LAUNCH("apsm_detect_kernel");
    GPUMIMO_CUDA_CHECK(cudaEventRecord(d.stop.get(), s));
    GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(
        soft, d.soft.get(), out_floats * sizeof(float), cudaMemcpyDeviceToHost, s));
    GPUMIMO_CUDA_CHECK(cudaStreamSynchronize(s));
    GPUMIMO_CUDA_CHECK(cudaEventElapsedTime(&d.kernel_ms, d.start.get(), d.stop.get()));
}

} // namespace core
} // namespace gpumimo
} // namespace gr
