/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * K-best on the GPU, the algorithm of lib/core/detect/references/kbest_ref.cc: the interleaved real model
 * (mrvd_model.cuh, one QR per matrix), then one block per problem going down the 2nt
 * real levels: every survivor's interference term once per level, one thread per child
 * for its metric, and the K best children chosen by block-wide ranking on
 * (metric, child index), which is exactly the reference's stable sort and truncation.
 * LLRs from per-(stream, point) minima over the final list, with LLR clipping.
 */
#include "detect/blocks/constellation_table.cuh"
#include "common/cuda_check.cuh"
#include "common/launch_config.cuh"
#include "common/gpu_math.cuh"
#include "detect/kernels/kbest.cuh"
#include "detect/kernels/chunk_args.cuh"
#include "detect/blocks/mrvd_model.cuh"
#include "detect/gpu_registry.cuh"

namespace gr {
namespace gpumimo {
namespace cuda {

namespace {

template <typename real>
struct kbest_smem {
    real* r;                                      // [dims][dims]
    real* yhat;                                   // [dims]
    real* parent_b;                               // [k]
    real* child_metric;                           // [k * npam]
    real* metric;                                 // [2][k]
    typename mrvd::metric_bits<real>::type* best; // [nt][Q]
    unsigned char* levels;                        // [2][k][dims]
};

template <typename real>
std::size_t kbest_smem_bytes(int nt, int k, int npam, int npoints)
{
    const int dims = 2 * nt;
    std::size_t b = sizeof(real) * std::size_t(dims * dims + dims + k + k * npam + 2 * k);
    b = (b + 7) / 8 * 8 +
        sizeof(typename mrvd::metric_bits<real>::type) * std::size_t(nt) * npoints;
    return b + std::size_t(2) * k * dims;
}

template <typename real>
__global__ void kbest_kernel(chunk_args a, mrvd::workspace<real> w, int k)
{
    extern __shared__ __align__(16) unsigned char smem[];
    using bits_of = mrvd::metric_bits<real>;
    const int nt = a.nt, m = a.m, dims = 2 * nt, npam = 1 << (m / 2), npoints = 1 << m;
    const int tid = threadIdx.x, T = blockDim.x;
    const std::size_t v = blockIdx.x;
    const std::size_t c = channel_of(a, v);
    const real scale = real(a.pam_scale);

    kbest_smem<real> s;
    s.r = reinterpret_cast<real*>(smem);
    s.yhat = s.r + dims * dims;
    s.parent_b = s.yhat + dims;
    s.child_metric = s.parent_b + k;
    s.metric = s.child_metric + k * npam;
    unsigned char* after = reinterpret_cast<unsigned char*>(s.metric + 2 * k);
    after = reinterpret_cast<unsigned char*>((reinterpret_cast<std::size_t>(after) + 7) /
                                             8 * 8);
    s.best = reinterpret_cast<typename bits_of::type*>(after);
    s.levels = reinterpret_cast<unsigned char*>(s.best + nt * npoints);

    mrvd::load_model(a, w, 1, c, v, s.r, s.yhat, tid, T);
    for (int i = tid; i < nt * npoints; i += T)
        s.best[i] = bits_of::infinity;
    if (tid == 0)
        s.metric[0] = 0;
    __syncthreads();

    int cur = 0, survivors = 1;
    for (int i = dims - 1; i >= 0; i--) {
        const unsigned char* lv = s.levels + cur * k * dims;
        for (int p = tid; p < survivors; p += T) {
            real b = s.yhat[i];
            for (int j = i + 1; j < dims; j++)
                b -= s.r[i * dims + j] *
                     pam_amplitude<real>(lv[p * dims + j], npam, scale);
            s.parent_b[p] = b;
        }
        __syncthreads();
        const int children = survivors * npam;
        for (int ch = tid; ch < children; ch += T) {
            const int p = ch / npam, l = ch % npam;
            const real e =
                s.parent_b[p] - s.r[i * dims + i] * pam_amplitude<real>(l, npam, scale);
            const real metric = s.metric[cur * k + p] + e * e;
            // NaN (bad input; its LLRs are zeroed later) ranks as +inf, so that
            // (metric, index) stays a total order and every rank is taken once.
            s.child_metric[ch] = isnan(metric) ? real(INFINITY) : metric;
        }
        __syncthreads();
        const int nxt = cur ^ 1;
        unsigned char* nlv = s.levels + nxt * k * dims;
        for (int ch = tid; ch < children; ch += T) {
            const real mc = s.child_metric[ch];
            int rank = 0;
            for (int j = 0; j < children; j++) {
                const real mj = s.child_metric[j];
                rank += (mj < mc) || (mj == mc && j < ch);
            }
            if (rank < k) {
                const int p = ch / npam;
                for (int j = i + 1; j < dims; j++)
                    nlv[rank * dims + j] = lv[p * dims + j];
                nlv[rank * dims + i] = static_cast<unsigned char>(ch % npam);
                s.metric[nxt * k + rank] = mc;
            }
        }
        __syncthreads();
        cur = nxt;
        survivors = children < k ? children : k;
    }

    const unsigned char* lv = s.levels + cur * k * dims;
    for (int p = tid; p < survivors; p += T)
        for (int j = 0; j < nt; j++) {
            const int point =
                a.from_levels[lv[p * dims + 2 * j] * npam + lv[p * dims + 2 * j + 1]];
            atomicMin(&s.best[j * npoints + point], bits_of::of(s.metric[cur * k + p]));
        }
    __syncthreads();
    mrvd::write_llrs_from_minima<real>(a, s.best, v, c, tid, T);
}

template <typename real>
void launch(const chunk_args& a, int k, void* ws, cudaStream_t s)
{
    const mrvd::workspace<real> w = mrvd::carve<real>(ws, a.nch, a.nt, a.nr, 1);
    mrvd::launch_qr(a, 1, w, s);
    const int npam = 1 << (a.m / 2);
    const int children = k * npam;
    const int threads = children >= 256 ? 256 : (children + 31) / 32 * 32;
    const std::size_t smem = kbest_smem_bytes<real>(a.nt, k, npam, 1 << a.m);
    allow_dynamic_smem(kbest_kernel<real>, smem);
    kbest_kernel<real><<<unsigned(a.n), threads, smem, s>>>(a, w, k);
    GPUMIMO_CUDA_CHECK_LAUNCH("kbest_kernel");
}

} // namespace

std::size_t kbest_workspace_bytes(int nt, int nr, bool dbl)
{
    return mrvd::workspace_bytes(nt, nr, 1, dbl);
}

void launch_kbest(const chunk_args& a, int k, void* ws, bool dbl, cudaStream_t s)
{
    if (a.n == 0)
        return;
    if (dbl)
        launch<double>(a, k, ws, s);
    else
        launch<float>(a, k, ws, s);
}

// The registry's GPU entry of kbest.
const gpu_detector_entry& kbest_gpu_detector()
{
    static const gpu_detector_entry e{
        [](const core::constellation& c,
           int,
           int,
           const core::detector_params& p,
           std::string* why) {
            if (p.kbest.k * c.pam_size() <= kbest_max_children)
                return true;
            if (why)
                *why = "the CUDA kbest ranks at most " +
                       std::to_string(kbest_max_children) +
                       " children per level (kbest_k * sqrt(Q))";
            return false;
        },
        [](int nt, int nr, const core::detector_params&, bool dbl) {
            return kbest_workspace_bytes(nt, nr, dbl);
        },
        no_plan,
        [](const gpu_launch& l, cudaStream_t s) {
            launch_kbest(l.a, l.params->kbest.k, l.ws, l.dbl, s);
        } };
    return e;
}

} // namespace cuda
} // namespace gpumimo
} // namespace gr
