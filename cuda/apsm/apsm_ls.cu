/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The least-squares start of the APSM trainer's linear parts (apsm_ls.cuh): the normal
 * equations' sums a tile of samples per block, then one block for the Cholesky
 * factorisation of the normal matrix all users share and a warp per user for the
 * triangular solves. In double.
 */
#include "apsm/apsm_ls.cuh"
#include "common/cuda_check.cuh"

#include <cstdio>
#include <string>

namespace gr {
namespace gpumimo {
namespace core {
namespace apsm_ls {

namespace {

constexpr int max_dim = 32; // 16 antennas, two reals each

// As core::ls_weights does on the host, but from the scaled samples (the scaled
// problem's solution is the unscaled one divided by the scale, which is what the
// trainer's linear part needs). The pivot test is relative to the normal matrix's
// diagonal (the host's adds 1, which is not scale-free); both refuse a silent antenna.
constexpr int ls_tile = 64; // training samples per block of apsm_ls_sums_kernel
constexpr int ls_sums = max_dim * max_dim; // normal-matrix entries, then right-hand sides

// The normal equations' sums over one tile of samples per block (the tiles' partial
// sums, added up by apsm_ls_kernel): partial[block][i * max_dim + j] for j <= i, then
// partial[block][ls_sums + u * max_dim + d]. In double, the tile converted once as it is
// loaded (conversions are far slower than double FMAs).
__global__ void __launch_bounds__(1024, 1) apsm_ls_sums_kernel(const float* __restrict__ x,
                                                            const float* __restrict__ target,
                                                            int total,
                                                            int dim,
                                                            int users,
                                                            double* __restrict__ partial)
{
    __shared__ double xs[ls_tile][max_dim + 1];
    extern __shared__ double ts[]; // users x ls_tile
    const int tid = threadIdx.x, i = tid / max_dim, j = tid % max_dim;
    const int t0 = blockIdx.x * ls_tile, n = min(ls_tile, total - t0);
    const int stride = ls_sums + users * max_dim;
    double* out = partial + std::size_t(blockIdx.x) * stride;
    for (int e = tid; e < ls_tile * max_dim; e += blockDim.x)
        xs[e / max_dim][e % max_dim] =
            e / max_dim < n ? double(x[std::size_t(t0) * max_dim + e]) : 0.0;
    for (int e = tid; e < users * ls_tile; e += blockDim.x)
        ts[e] = e % ls_tile < n
                    ? double(target[std::size_t(e / ls_tile) * total + t0 + e % ls_tile])
                    : 0.0;
    __syncthreads();
    if (i < dim && j <= i) {
        double sum = 0;
        for (int t = 0; t < n; t++)
            sum = fma(xs[t][i], xs[t][j], sum);
        out[i * max_dim + j] = sum;
    }
    for (int e = tid; e < users * max_dim; e += blockDim.x) {
        const int u = e / max_dim, d = e % max_dim;
        double r = 0;
        if (d < dim)
            for (int t = 0; t < n; t++)
                r = fma(xs[t][d], ts[u * ls_tile + t], r);
        out[ls_sums + e] = r;
    }
}

__global__ void __launch_bounds__(1024, 1) apsm_ls_kernel(const double* __restrict__ partial,
                                                       int blocks,
                                                       int dim,
                                                       int users,
                                                       double inv_wl,
                                                       float* __restrict__ lin0,
                                                       int* __restrict__ singular)
{
    __shared__ double a[max_dim][max_dim + 1];
    extern __shared__ double rhs[]; // users x max_dim
    const int tid = threadIdx.x, i = tid / max_dim, j = tid % max_dim;
    const int stride = ls_sums + users * max_dim;
#ifdef GPUMIMO_APSM_TRAIN_PROFILE
    const long long t_start = clock64();
#endif
    if (i < dim && j <= i) {
        double sum = 0;
        for (int b = 0; b < blocks; b++)
            sum += partial[std::size_t(b) * stride + i * max_dim + j];
        a[i][j] = sum;
    }
    for (int e = tid; e < users * max_dim; e += blockDim.x) {
        double sum = 0;
        for (int b = 0; b < blocks; b++)
            sum += partial[std::size_t(b) * stride + ls_sums + e];
        rhs[e] = sum;
    }
#ifdef GPUMIMO_APSM_TRAIN_PROFILE
    const long long t_sums = clock64();
#endif
    __syncthreads();
    __shared__ double diag[max_dim]; // the normal matrix's diagonal, for the pivot test
    __shared__ bool bad;
    if (j == 0 && i < dim)
        diag[i] = a[i][i];
    __syncthreads();
    // Cholesky, right-looking: column c scaled, then the trailing matrix updated by every
    // thread at once (no thread walks a row).
    for (int c = 0; c < dim; c++) {
        if (tid == 0) {
            const double d = a[c][c];
            bad = !(d > 1e-12 * diag[c]);
            a[c][c] = bad ? 1.0 : sqrt(d);
            if (bad)
                *singular = 1;
        }
        __syncthreads();
        if (bad)
            return; // uniform: every thread read the same flag
        if (j == 0 && i > c && i < dim)
            a[i][c] /= a[c][c];
        __syncthreads();
        if (i < dim && j > c && j <= i)
            a[i][j] -= a[i][c] * a[j][c];
        __syncthreads();
    }
#ifdef GPUMIMO_APSM_TRAIN_PROFILE
    const long long t_chol = clock64();
#endif
    // The two triangular solves, a warp per user, a lane per dimension.
    const int lane = tid % 32, warp_id = tid / 32;
    for (int u = warp_id; u < users; u += blockDim.x / 32) {
        double w = lane < dim ? rhs[u * max_dim + lane] : 0.0;
        for (int r = 0; r < dim; r++) { // L y = rhs
            if (lane == r)
                w /= a[r][r];
            const double wr = __shfl_sync(0xffffffffu, w, r);
            if (lane > r && lane < dim)
                w -= a[lane][r] * wr;
        }
        for (int r = dim - 1; r >= 0; r--) { // L^T w = y
            if (lane == r)
                w /= a[r][r];
            const double wr = __shfl_sync(0xffffffffu, w, r);
            if (lane < r)
                w -= a[r][lane] * wr;
        }
        lin0[u * max_dim + lane] = lane < dim ? float(w * inv_wl) : 0.0f;
    }
#ifdef GPUMIMO_APSM_TRAIN_PROFILE
    if (tid == 0)
        printf("ls profile: cycles to the sums' end %lld, Cholesky %lld, solves %lld\n",
               t_sums - t_start, t_chol - t_sums, clock64() - t_chol);
#endif
}

} // namespace

int max_users()
{
    // The sums kernel's shared memory: its sample tile plus the users' target tiles
    // within the 48 KB a block gets without opting in.
    constexpr std::size_t tile_bytes = sizeof(double) * ls_tile * (max_dim + 1) + 64;
    return int((48 * 1024 - tile_bytes) / (ls_tile * sizeof(double)));
}

std::size_t scratch_size(int total, int users)
{
    return std::size_t((total + ls_tile - 1) / ls_tile) *
           (ls_sums + std::size_t(users) * max_dim);
}

void launch(const float* x,
            const float* target,
            int total,
            int dim,
            int users,
            double inv_wl,
            double* scratch,
            float* lin0,
            int* singular,
            cudaStream_t s)
{
    const int blocks = (total + ls_tile - 1) / ls_tile;
    apsm_ls_sums_kernel<<<blocks, 1024, users * ls_tile * sizeof(double), s>>>(
        x, target, total, dim, users, scratch);
    GPUMIMO_CUDA_CHECK_LAUNCH("apsm_ls_sums_kernel");
    apsm_ls_kernel<<<1, 1024, users * max_dim * sizeof(double), s>>>(
        scratch, blocks, dim, users, inv_wl, lin0, singular);
    GPUMIMO_CUDA_CHECK_LAUNCH("apsm_ls_kernel");
}

} // namespace apsm_ls
} // namespace core
} // namespace gpumimo
} // namespace gr
