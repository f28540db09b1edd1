/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * APSM detection of all users at once (core::gpu_apsm_detector). Two threads per
 * received vector hold its real vector r1 in registers, half the antennas each; the
 * block walks a slice of the shared dictionary through shared memory, computes each
 * entry's Gaussian kernel values once and weights them by every user's coefficient. The
 * dictionary is cut into slices over gridDim.y so that a few thousand vectors still
 * fill the GPU; the slices' sums meet by atomicAdd in the zeroed output. (One thread per
 * vector left too few warps per scheduler to hide the waits on shared memory: 12.3 us
 * against 10.5-10.8 on the ofdm recordings, about the same on the time recordings.)
 *
 * The dictionary holds training vectors in pairs: r1 = [Re t; Im t] and its second real
 * vector r2 = J r1 = [Im t; -Re t], and so do the received vectors (x1, x2 = J x1). J is
 * orthogonal and J^T = -J, so of the four dot products between a received pair and a
 * dictionary pair only two differ: x2.r2 = x1.r1 and x2.r1 = -x1.r2. A pair's four
 * kernel values therefore cost two dot products, not four, and three distinct
 * exponentials (k(x1, r1) = k(x2, r2)): half the multiply-adds of taking the entries one
 * by one. The detector finds the pairs when it takes the filters; an entry whose
 * partner is missing or weighted 0 by every user is a single row, which still costs two
 * dot products (x1.e and x2.e) but half the users' multiply-adds.
 *
 * Vectors are stored interleaved, [Re t_0, Im t_0, Re t_1, ...]: distances and dot
 * products do not depend on the order of the components, and the interleaved order
 * lets the register array be indexed by compile-time constants.
 */
#include "common/cuda_check.cuh"
#include "common/device_memory.cuh"
#include "common/slot_ring.cuh"
#include "detail/gpu_engines.h"

#include <gnuradio/gpumimo/core/apsm/gpu_apsm.h>

#include <cuda_pipeline.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

constexpr int max_dim = 32;  // 16 antennas, two reals each
constexpr int max_users = 8;
constexpr int tile = 64;     // dictionary pairs per shared-memory slice
constexpr int threads = 128; // per block: two per received vector
constexpr int block_vectors = threads / 2;
// The dictionary is cut into slices so that the grid is about blocks_per_sm deep on
// every multiprocessor, no slice under min_slice_pairs. Measured on an H200 (3,840
// vectors, 6 users, kernel us, gr-gpumimo / library defaults, 16-QAM time recording):
// depth 4 17.2 / 25.3, 6 16.4 / 24.3, 8 17.4 / 24.5, 12 18.0 / 25.0, 16 19.2 / 25.4.
constexpr int blocks_per_sm = 6;
constexpr int min_slice_pairs = 8;
constexpr int max_slices = 64;

// 2^x by the special-function unit alone (relative error ~2^-22; results below 2^-126,
// far under any value the sums could notice, flush to 0): exp2f adds range handling.
__device__ float fast_exp2(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// The squared distance is ||x||^2 + ||e||^2 - 2 x.e: one FMA per dimension instead of a
// difference and an FMA (the kernel is issue-bound). Its cancellation error is a few
// float ulps of ||x||^2 + ||e||^2, within the GPU tests' bound. The kernel value
// exp(-d / (2 sigma^2)) is 2^(gamma d) with gamma = -log2(e) / (2 sigma^2), and the
// norms come scaled by gamma (dict_norm already, the received vector's here), so that
// it is one FMA and one 2^x: 2^(gamma ||x||^2 + gamma ||e||^2 - 2 gamma x.e). A distance
// a few ulps below 0 gives a value a few ulps above 1, inside the same bound. U: the
// number of users, so that no multiply-add goes to an absent user. Dictionary rows
// [0, full_pairs) are pairs, the rest single vectors (four and two multiply-adds per
// user and pair of threads).
//
// Tried and measured slower (H200, entries one by one): the dot products as tensor-core
// products (mma.sync m16n8k8 TF32, split into head and tail for float accuracy: three
// products per tile): correct, but 27.3 us against 23.6 (defaults) and 52.8 against
// 36.2 (library defaults); the legacy TF32 MMA rate, tripled, bounds it.
template <int U>
__global__ void apsm_detect_kernel(const float2* __restrict__ rx,
                                   int n,
                                   int antennas,
                                   float scale,
                                   const float4* __restrict__ dict,
                                   const float* __restrict__ dict_norm,
                                   const float4* __restrict__ coef,
                                   int pairs,
                                   int full_pairs,
                                   int slice_len,
                                   const float* __restrict__ lin,
                                   float wl,
                                   float wg,
                                   float gamma,
                                   float* __restrict__ soft)
{
    constexpr int quads = max_dim / 4;        // float4s per vector
    constexpr int half_quads = quads / 2;     // float4s per half (8 antennas)
    constexpr int coef_quads = max_users / 2; // (c1, c2) of two users per float4
    constexpr unsigned warp = 0xffffffffu;
    __shared__ float4 s_dict[tile][quads];
    __shared__ float s_norm[tile];
    __shared__ float4 s_coef[tile][coef_quads];
    // Two threads per received vector, h = 0 and 1: each takes half the antennas of every
    // dot product (their partial sums meet by a shuffle) and one of the vector's two real
    // outputs, f(x1) for h = 0 and f(x2) for h = 1.
    const int h = threadIdx.x & 1;
    const int t = blockIdx.x * (blockDim.x / 2) + (threadIdx.x >> 1);
    const bool active = t < n;
    const int first = blockIdx.y * slice_len;
    const int last = min(pairs, first + slice_len);

    // A tile of dictionary rows into shared memory by asynchronous copies: all of them in
    // flight at once, and the first tile's beside the loads of the received vector. (With
    // copies through registers, each thread's loads waited one after another: with few
    // warps per scheduler these waits were much of a short kernel's time.)
    auto stage = [&](int base) {
        const int count = min(tile, last - base);
        for (int i = threadIdx.x; i < count * quads; i += blockDim.x)
            __pipeline_memcpy_async(&s_dict[i / quads][i % quads],
                                    &dict[std::size_t(base) * quads + i], sizeof(float4));
        for (int i = threadIdx.x; i < count * coef_quads; i += blockDim.x)
            __pipeline_memcpy_async(&s_coef[i / coef_quads][i % coef_quads],
                                    &coef[std::size_t(base) * coef_quads + i], sizeof(float4));
        for (int i = threadIdx.x; i < count; i += blockDim.x)
            __pipeline_memcpy_async(&s_norm[i], &dict_norm[base + i], sizeof(float));
        __pipeline_commit();
    };
    if (first < last)
        stage(first);

    // This thread's half of x1, interleaved: [Re r_m, Im r_m, ...] for antennas
    // m = 8h .. 8h + 7.
    float x[max_dim / 2];
    float norm = 0.0f;
#pragma unroll
    for (int d = 0; d < max_dim / 4; d++) {
        const int m = h * (max_dim / 4) + d;
        float2 r = (active && m < antennas) ? rx[std::size_t(t) * antennas + m]
                                            : make_float2(0.0f, 0.0f);
        x[2 * d] = r.x * scale;
        x[2 * d + 1] = r.y * scale;
        norm = fmaf(x[2 * d], x[2 * d], fmaf(x[2 * d + 1], x[2 * d + 1], norm));
    }
    norm += __shfl_xor_sync(warp, norm, 1); // both threads add the same two numbers
    const float norm_g = gamma * norm;

    float g[U]; // the Gaussian sums at x1 (h = 0) or x2 (h = 1)
#pragma unroll
    for (int u = 0; u < U; u++)
        g[u] = 0.0f;
    const float a_coef = -2.0f * gamma, b_coef = h ? 2.0f * gamma : -2.0f * gamma;
    for (int base = first; base < last; base += tile) {
        const int count = min(tile, last - base);
        if (base != first) {
            __syncthreads(); // the previous tile is used up
            stage(base);
        }
        __pipeline_wait_prior(0);
        __syncthreads();
        for (int e = 0; e < count; e++) {
            // a = x1.r1, b = x1.r2 with r2 = [Im t; -Re t], over this thread's half: two
            // partial sums each, four independent FMA chains of 8.
            float a0 = 0.0f, a1 = 0.0f, b0 = 0.0f, b1 = 0.0f;
#pragma unroll
            for (int q = 0; q < half_quads; q++) {
                const float4 v = s_dict[e][h * half_quads + q]; // Re t, Im t of 2 antennas
                a0 = fmaf(v.x, x[4 * q], a0);
                a1 = fmaf(v.y, x[4 * q + 1], a1);
                a0 = fmaf(v.z, x[4 * q + 2], a0);
                a1 = fmaf(v.w, x[4 * q + 3], a1);
                b0 = fmaf(v.y, x[4 * q], b0);
                b1 = fmaf(-v.x, x[4 * q + 1], b1);
                b0 = fmaf(v.w, x[4 * q + 2], b0);
                b1 = fmaf(-v.z, x[4 * q + 3], b1);
            }
            float a = a0 + a1, b = b0 + b1;
            a += __shfl_xor_sync(warp, a, 1);
            b += __shfl_xor_sync(warp, b, 1);
            const float base_g = norm_g + s_norm[e];
            // k11 = k(x1, r1) = k(x2, r2); kb = k(x1, r2) for h = 0, k(x2, r1) for h = 1
            // (distances base - 2b and base + 2b).
            const float k11 = fast_exp2(fmaf(a_coef, a, base_g));
            const float kb = fast_exp2(fmaf(b_coef, b, base_g));
            // f(x1) = sum c1 k(x1, r1) + c2 k(x1, r2); f(x2) = sum c1 k(x2, r1) + c2 k(x2, r2).
            const float k_r1 = h ? kb : k11, k_r2 = h ? k11 : kb;
            if (base + e < full_pairs) { // the same branch for the whole block
#pragma unroll
                for (int hq = 0; hq < (U + 1) / 2; hq++) {
                    const float4 c = s_coef[e][hq]; // c1, c2 of user 2hq, then of 2hq + 1
                    g[2 * hq] = fmaf(c.x, k_r1, fmaf(c.y, k_r2, g[2 * hq]));
                    if (2 * hq + 1 < U)
                        g[2 * hq + 1] = fmaf(c.z, k_r1, fmaf(c.w, k_r2, g[2 * hq + 1]));
                }
            } else { // a single entry r1: c2 is 0
#pragma unroll
                for (int hq = 0; hq < (U + 1) / 2; hq++) {
                    const float4 c = s_coef[e][hq];
                    g[2 * hq] = fmaf(c.x, k_r1, g[2 * hq]);
                    if (2 * hq + 1 < U)
                        g[2 * hq + 1] = fmaf(c.z, k_r1, g[2 * hq + 1]);
                }
            }
        }
    }
#pragma unroll
    for (int u = 0; u < U; u++) {
        float v = wg * g[u];
        if (blockIdx.y == 0) { // the linear part, once: lin.x1 (h = 0) or lin.x2, x2 = J x1
            float dot1 = 0.0f, dot2 = 0.0f;
#pragma unroll
            for (int k = 0; k < max_dim / 2; k += 2) {
                const float l0 = lin[u * max_dim + h * (max_dim / 2) + k];
                const float l1 = lin[u * max_dim + h * (max_dim / 2) + k + 1];
                dot1 = fmaf(l0, x[k], fmaf(l1, x[k + 1], dot1));
                dot2 = fmaf(l0, x[k + 1], fmaf(-l1, x[k], dot2));
            }
            dot1 += __shfl_xor_sync(warp, dot1, 1);
            dot2 += __shfl_xor_sync(warp, dot2, 1);
            v += wl * (h ? dot2 : dot1);
        }
        if (active)
            atomicAdd(&soft[2 * (std::size_t(u) * n + t) + h], v);
    }
}

using kernel_fn = void (*)(const float2*, int, int, float, const float4*, const float*,
                           const float4*, int, int, int, const float*, float, float, float,
                           float*);

kernel_fn kernel_for(int users)
{
    switch (users) {
    case 1: return apsm_detect_kernel<1>;
    case 2: return apsm_detect_kernel<2>;
    case 3: return apsm_detect_kernel<3>;
    case 4: return apsm_detect_kernel<4>;
    case 5: return apsm_detect_kernel<5>;
    case 6: return apsm_detect_kernel<6>;
    case 7: return apsm_detect_kernel<7>;
    default: return apsm_detect_kernel<max_users>;
    }
}

// Component d of a [first half; second half] vector of dimension 2M, interleaved.
int interleaved(int d, int antennas) { return d < antennas ? 2 * d : 2 * (d - antennas) + 1; }

// Whether entry f is the second real vector of entry e: f = J e = [e's second half;
// -e's first half].
bool is_second_of(const float* e, const float* f, int antennas)
{
    for (int m = 0; m < antennas; m++)
        if (f[m] != e[antennas + m] || f[antennas + m] != -e[m])
            return false;
    return true;
}

} // namespace

struct gpu_apsm_detector::impl {
    int device;
    int antennas, max_user_count, users = 0;
    int pairs = 0, full_pairs = 0; // dictionary rows: full pairs first, then singles
    int sms = 1;                   // multiprocessors of the device
    std::size_t max_entries, max_symbols;
    float scale = 1, wl = 0, wg = 0;
    float gamma = 0; // -log2(e) / (2 sigma^2), for 2^x; dict_norm holds gamma ||t||^2
    cuda::device_buffer<float> dict, dict_norm, coef, lin;
    // One call's stream and device buffers: submitted calls take them in turn, so that
    // one call's copies overlap another's kernel. From page-locked memory a submitted
    // call is one CUDA graph launch (copy up, memset, kernel, copy down): the host's
    // part of a call was 13-18 us as separate calls, which bounded the streamed rate.
    struct slot {
        cuda::device_buffer<float2> rx;
        cuda::device_buffer<float> soft;
        cuda::event start{ true }, stop{ true }; // around the kernel, when timed
        bool timed = false;
        cudaGraph_t graph = nullptr;
        cudaGraphExec_t exec = nullptr;
        cudaGraphNode_t up = nullptr, down = nullptr; // its copies
        std::size_t graph_n = 0;                     // the call size it was made for
        const void* graph_rx = nullptr;              // the host buffers its copies name
        const void* graph_soft = nullptr;

        slot() = default;
        slot(const slot&) = delete;
        slot& operator=(const slot&) = delete;
        ~slot() { drop_graph(); }
        void drop_graph()
        {
            if (exec)
                cudaGraphExecDestroy(exec);
            if (graph)
                cudaGraphDestroy(graph);
            exec = nullptr;
            graph = nullptr;
            graph_n = 0;
        }
    };
    // Four: with three the streamed rate was 22.2-23.1 us per call, with four 20.3, six
    // 18.0-21.2, two 31-35 (H200, before the graphs).
    std::array<slot, 4> slots;
    std::unique_ptr<cuda::slot_ring> ring; // slot k's stream
    int last_slot = -1;
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
        // At most one dictionary row per entry.
        dict = cuda::device_buffer<float>(std::max<std::size_t>(1, max_entries * max_dim));
        dict_norm = cuda::device_buffer<float>(std::max<std::size_t>(1, max_entries));
        coef = cuda::device_buffer<float>(std::max<std::size_t>(1, max_entries * 2 * max_users));
        lin = cuda::device_buffer<float>(max_users * max_dim);
        ring = std::make_unique<cuda::slot_ring>(slots.size(), std::vector<int>{ device });
        for (slot& sl : slots) {
            sl.rx = cuda::device_buffer<float2>(std::max<std::size_t>(1, max_symbols * antennas));
            sl.soft =
                cuda::device_buffer<float>(std::max<std::size_t>(1, 2 * max_symbols * max_users));
        }
    }

    // The kernel's launch for n vectors in slot sl: its grid and its arguments, in the
    // kernel's order (cudaLaunchKernel and a graph's kernel node take their addresses).
    struct launch {
        dim3 grid;
        const float2* rx;
        int n, antennas;
        float scale;
        const float4* dict;
        const float* dict_norm;
        const float4* coef;
        int pairs, full_pairs, slice_len;
        const float* lin;
        float wl, wg, gamma;
        float* soft;
        void* args[15] = { &rx,        &n,   &antennas, &scale, &dict,  &dict_norm,
                           &coef,      &pairs, &full_pairs, &slice_len, &lin, &wl,
                           &wg,        &gamma, &soft };
        launch() = default;
        launch(const launch&) = delete; // args point into it
    };
    void prepare(launch& k, const slot& sl, std::size_t n) const;

    void set_filters(const std::vector<apsm_filter>& f);
    /*! timed: as separate calls with events around the kernel (detect()), else as the
     *  slot's graph when both buffers are page-locked. */
    void submit(const std::complex<float>* rx,
                std::size_t n,
                std::complex<float>* soft,
                bool timed);
    void make_graph(slot& sl, const std::complex<float>* rx, std::size_t n, std::complex<float>* soft);
    void enqueue(slot& sl,
                 cudaStream_t s,
                 const std::complex<float>* rx,
                 std::size_t n,
                 std::complex<float>* soft,
                 bool graphed);
    void finish();
};

namespace {

// The detector's dictionary rows on the host: t (interleaved), ||t||^2 and the users'
// coefficients (c1, c2) of r1 = t and r2 = J t.
struct dictionary_rows {
    std::vector<float> dict, norm, coef;
    int count = 0;

    void add(const float* r1, const std::vector<float>& c, int antennas)
    {
        std::vector<float> entry(max_dim, 0.0f);
        for (int d = 0; d < 2 * antennas; d++)
            entry[interleaved(d, antennas)] = r1[d];
        float n = 0.0f; // as the kernel sums ||x||^2: float, in antenna order
        for (int m = 0; m < antennas; m++)
            n = std::fma(entry[2 * m], entry[2 * m], std::fma(entry[2 * m + 1], entry[2 * m + 1], n));
        dict.insert(dict.end(), entry.begin(), entry.end());
        norm.push_back(n);
        coef.insert(coef.end(), c.begin(), c.end());
        count++;
    }
};

} // namespace

void gpu_apsm_detector::impl::set_filters(const std::vector<apsm_filter>& f)
{
    if (f.empty() || f.size() > std::size_t(max_user_count))
        throw std::invalid_argument("gpu_apsm_detector: 1 to " + std::to_string(max_user_count) +
                                    " users");
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
    cuda::device_guard guard;
    GPUMIMO_CUDA_CHECK(cudaSetDevice(device));
    finish(); // submitted calls' kernels read the dictionary being replaced
    for (slot& sl : slots)
        sl.drop_graph(); // their kernel nodes name the old sizes and parameters

    // Pairs (an entry and its second real vector) where the dictionary has them one after
    // the other, as training adds them, and some user weights both; an entry alone, or
    // the one of a pair that some user weights, is a single row (c2 = 0). Entries no user
    // weights add nothing: they are left out.
    const int dim = 2 * antennas;
    const std::size_t entries = f[0].gauss.size();
    dictionary_rows full, single;
    auto weighted = [&](std::size_t e) {
        for (const apsm_filter& u : f)
            if (u.gauss[e] != 0)
                return true;
        return false;
    };
    auto coefficients = [&](std::size_t e1, std::size_t e2) { // e2 == entries: none
        std::vector<float> c(2 * max_users, 0.0f);
        for (std::size_t u = 0; u < f.size(); u++) {
            c[2 * u] = float(f[u].gauss[e1]);
            c[2 * u + 1] = e2 < entries ? float(f[u].gauss[e2]) : 0.0f;
        }
        return c;
    };
    for (std::size_t e = 0; e < entries;) {
        const float* r1 = &f[0].dict[e * dim];
        const bool paired = e + 1 < entries && is_second_of(r1, r1 + dim, antennas);
        const bool w1 = weighted(e), w2 = paired && weighted(e + 1);
        if (w1 && w2)
            full.add(r1, coefficients(e, e + 1), antennas);
        else if (w1)
            single.add(r1, coefficients(e, entries), antennas);
        else if (w2)
            single.add(r1 + dim, coefficients(e + 1, entries), antennas);
        e += paired ? 2 : 1;
    }
    full.dict.insert(full.dict.end(), single.dict.begin(), single.dict.end());
    full.norm.insert(full.norm.end(), single.norm.begin(), single.norm.end());
    const float new_gamma = float(-0.5 / f[0].variance * 1.4426950408889634);
    for (float& v : full.norm) // the kernel takes them scaled (see the kernel)
        v *= new_gamma;
    full.coef.insert(full.coef.end(), single.coef.begin(), single.coef.end());
    std::vector<float> h_lin(max_users * max_dim, 0.0f);
    for (std::size_t u = 0; u < f.size(); u++)
        for (int d = 0; d < dim; d++)
            h_lin[u * max_dim + interleaved(d, antennas)] = float(f[u].lin[d]);

    if (!full.dict.empty()) {
        GPUMIMO_CUDA_CHECK(cudaMemcpy(
            dict.get(), full.dict.data(), full.dict.size() * 4, cudaMemcpyHostToDevice));
        GPUMIMO_CUDA_CHECK(cudaMemcpy(
            dict_norm.get(), full.norm.data(), full.norm.size() * 4, cudaMemcpyHostToDevice));
        GPUMIMO_CUDA_CHECK(cudaMemcpy(
            coef.get(), full.coef.data(), full.coef.size() * 4, cudaMemcpyHostToDevice));
    }
    GPUMIMO_CUDA_CHECK(
        cudaMemcpy(lin.get(), h_lin.data(), h_lin.size() * 4, cudaMemcpyHostToDevice));
    users = int(f.size());
    full_pairs = full.count;
    pairs = full.count + single.count;

    scale = float(f[0].input_scale);
    wl = float(f[0].linear_weight);
    wg = float(f[0].gaussian_weight);
    gamma = new_gamma;
}

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

void gpu_apsm_detector::impl::prepare(launch& k, const slot& sl, std::size_t n) const
{
    const int blocks_x = int((n + block_vectors - 1) / block_vectors);
    const int slices = std::max(
        1, std::min({ max_slices, (blocks_per_sm * sms + blocks_x - 1) / blocks_x,
                      (pairs + min_slice_pairs - 1) / min_slice_pairs }));
    k.grid = dim3(unsigned(blocks_x), unsigned(slices));
    k.rx = sl.rx.get();
    k.n = int(n);
    k.antennas = antennas;
    k.scale = scale;
    k.dict = reinterpret_cast<const float4*>(dict.get());
    k.dict_norm = dict_norm.get();
    k.coef = reinterpret_cast<const float4*>(coef.get());
    k.pairs = pairs;
    k.full_pairs = full_pairs;
    k.slice_len = std::max(1, (pairs + slices - 1) / slices);
    k.lin = lin.get();
    k.wl = wl;
    k.wg = wg;
    k.gamma = gamma;
    k.soft = sl.soft.get();
}

void gpu_apsm_detector::impl::make_graph(slot& sl,
                                         const std::complex<float>* host_rx,
                                         std::size_t n,
                                         std::complex<float>* host_soft)
{
    sl.drop_graph();
    GPUMIMO_CUDA_CHECK(cudaGraphCreate(&sl.graph, 0));
    GPUMIMO_CUDA_CHECK(cudaGraphAddMemcpyNode1D(&sl.up, sl.graph, nullptr, 0, sl.rx.get(),
                                                host_rx, n * antennas * sizeof(float2),
                                                cudaMemcpyHostToDevice));
    cudaMemsetParams zero = {};
    zero.dst = sl.soft.get();
    zero.elementSize = sizeof(float);
    zero.width = 2 * n * users;
    zero.height = 1;
    cudaGraphNode_t zeroed, detected;
    GPUMIMO_CUDA_CHECK(cudaGraphAddMemsetNode(&zeroed, sl.graph, &sl.up, 1, &zero));
    launch k;
    prepare(k, sl, n);
    cudaKernelNodeParams p = {};
    p.func = reinterpret_cast<void*>(kernel_for(users));
    p.gridDim = k.grid;
    p.blockDim = dim3(threads);
    p.kernelParams = k.args;
    GPUMIMO_CUDA_CHECK(cudaGraphAddKernelNode(&detected, sl.graph, &zeroed, 1, &p));
    GPUMIMO_CUDA_CHECK(cudaGraphAddMemcpyNode1D(&sl.down, sl.graph, &detected, 1, host_soft,
                                                sl.soft.get(), 2 * n * users * sizeof(float),
                                                cudaMemcpyDeviceToHost));
    GPUMIMO_CUDA_CHECK(cudaGraphInstantiate(&sl.exec, sl.graph, 0));
    sl.graph_n = n;
    sl.graph_rx = host_rx;
    sl.graph_soft = host_soft;
}

void gpu_apsm_detector::impl::submit(const std::complex<float>* host_rx,
                                     std::size_t n,
                                     std::complex<float>* host_soft,
                                     bool timed)
{
    if (n > max_symbols)
        throw std::invalid_argument("gpu_apsm_detector::detect: more symbols than max_symbols");
    if (users == 0)
        throw std::logic_error("gpu_apsm_detector::detect: no filters (set_filters)");
    if (n == 0)
        return;
    const bool graphed = !timed && cuda::is_pinned(host_rx) && cuda::is_pinned(host_soft);
    try {
        // The slot's previous call has ended (its soft symbols are down): it is free.
        const std::size_t k = ring->next([](std::size_t) {});
        slot& sl = slots[k];
        sl.timed = !graphed;
        last_slot = int(k);
        enqueue(sl, ring->stream(k), host_rx, n, host_soft, graphed);
        ring->commit(k);
    } catch (...) {
        ring->abandon();
        throw;
    }
}

void gpu_apsm_detector::impl::enqueue(slot& sl,
                                      cudaStream_t s,
                                      const std::complex<float>* host_rx,
                                      std::size_t n,
                                      std::complex<float>* host_soft,
                                      bool graphed)
{
    const std::size_t in_bytes = n * antennas * sizeof(float2);
    const std::size_t out_bytes = 2 * n * users * sizeof(float);

    if (graphed) {
        if (!sl.exec || sl.graph_n != n) {
            make_graph(sl, host_rx, n, host_soft);
        } else {
            if (sl.graph_rx != host_rx) {
                GPUMIMO_CUDA_CHECK(cudaGraphExecMemcpyNodeSetParams1D(
                    sl.exec, sl.up, sl.rx.get(), host_rx, in_bytes, cudaMemcpyHostToDevice));
                sl.graph_rx = host_rx;
            }
            if (sl.graph_soft != host_soft) {
                GPUMIMO_CUDA_CHECK(cudaGraphExecMemcpyNodeSetParams1D(
                    sl.exec, sl.down, host_soft, sl.soft.get(), out_bytes,
                    cudaMemcpyDeviceToHost));
                sl.graph_soft = host_soft;
            }
        }
        GPUMIMO_CUDA_CHECK(cudaGraphLaunch(sl.exec, s));
        return;
    }

    GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(sl.rx.get(), host_rx, in_bytes, cudaMemcpyHostToDevice, s));
    // Zeroed just before the kernel adds into it: measured 15.7 us against 17.9-19.0
    // for the kernel when each call zeroed its part after its copy down instead (off
    // the next call's path, but the kernel's atomics then ran ~3 us slower).
    GPUMIMO_CUDA_CHECK(cudaMemsetAsync(sl.soft.get(), 0, out_bytes, s));
    GPUMIMO_CUDA_CHECK(cudaEventRecord(sl.start.get(), s));
    launch k;
    prepare(k, sl, n);
    GPUMIMO_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel_for(users)),
                                        k.grid, dim3(threads), k.args, 0, s));
    GPUMIMO_CUDA_CHECK_LAUNCH("apsm_detect_kernel");
    GPUMIMO_CUDA_CHECK(cudaEventRecord(sl.stop.get(), s));
    GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(host_soft, sl.soft.get(), out_bytes, cudaMemcpyDeviceToHost, s));
}

void gpu_apsm_detector::impl::finish()
{
    try {
        ring->finish([](std::size_t) {});
    } catch (...) {
        ring->abandon();
        throw;
    }
    if (last_slot >= 0 && slots[last_slot].timed) {
        const slot& sl = slots[last_slot];
        GPUMIMO_CUDA_CHECK(cudaEventElapsedTime(&kernel_ms, sl.start.get(), sl.stop.get()));
    }
}

void gpu_apsm_detector::submit(const std::complex<float>* rx,
                               std::size_t n,
                               std::complex<float>* soft)
{
    cuda::device_guard guard;
    GPUMIMO_CUDA_CHECK(cudaSetDevice(d_impl->device));
    d_impl->submit(rx, n, soft, false);
}

void gpu_apsm_detector::finish()
{
    cuda::device_guard guard;
    GPUMIMO_CUDA_CHECK(cudaSetDevice(d_impl->device));
    d_impl->finish();
}

void gpu_apsm_detector::detect(const std::complex<float>* rx,
                               std::size_t n,
                               std::complex<float>* soft)
{
    impl& d = *d_impl;
    cuda::device_guard guard;
    GPUMIMO_CUDA_CHECK(cudaSetDevice(d.device));
    d.submit(rx, n, soft, true);
    d.finish();
}

namespace detail {
namespace {
// The GPU trainer and detector as the factory's GPU engine (make_apsm_engine). Where
// the trainer does not take the parameters (the norm bound), training runs the CPU
// reference and detection stays on the GPU.
class gpu_apsm_engine : public apsm_engine
{
public:
    explicit gpu_apsm_engine(const apsm_engine_config& c)
        : d_config(c),
          d_detector(c.antennas,
                     c.users,
                     2 * std::min<std::size_t>(c.params.dictionary_size, c.max_training),
                     c.max_symbols,
                     c.device)
    {
        try {
            d_trainer = std::make_unique<gpu_apsm_trainer>(
                c.params, c.antennas, c.users, c.max_training, c.device);
        } catch (const std::invalid_argument&) {
            d_trainer.reset(); // parameters only the reference takes
        }
    }
    const char* backend() const override { return "cuda"; }
    void train(const std::complex<float>* rx,
               std::size_t n,
               const std::complex<float>* sent,
               std::vector<apsm_filter>& out) override
    {
        if (!d_trainer) {
            out.clear();
            for (int u = 0; u < d_config.users; u++)
                out.push_back(apsm_train(d_config.params, rx, n, d_config.antennas, sent + u * n));
            d_last_ms = -1.0f;
            return;
        }
        d_trainer->train(rx, n, sent, out);
        d_last_ms = d_trainer->last_kernel_ms();
    }
    void set_filters(const std::vector<apsm_filter>& f) override { d_detector.set_filters(f); }
    void detect(const std::complex<float>* rx, std::size_t n, std::complex<float>* soft) override
    {
        d_detector.detect(rx, n, soft);
        d_last_ms = d_detector.last_kernel_ms();
    }
    float last_kernel_ms() const override { return d_last_ms; }

private:
    apsm_engine_config d_config;
    std::unique_ptr<gpu_apsm_trainer> d_trainer;
    gpu_apsm_detector d_detector;
    float d_last_ms = -1.0f;
};
} // namespace

std::unique_ptr<apsm_engine> make_gpu_apsm_engine(const apsm_engine_config& c, std::string* why)
{
    constexpr int max_users = 8, max_antennas = 16;
    constexpr std::size_t max_pilots = 4096;
    if (c.users > max_users || c.antennas > max_antennas || c.max_training > max_pilots) {
        if (why)
            *why = "the GPU path takes at most " + std::to_string(max_users) + " users, " +
                   std::to_string(max_antennas) + " antennas and " +
                   std::to_string(max_pilots) + " pilots a training (apsm_detector's "
                   "max_training trains on that many of a frame's pilots)";
        return nullptr;
    }
    return std::make_unique<gpu_apsm_engine>(c);
}
} // namespace detail

} // namespace core
} // namespace gpumimo
} // namespace gr
