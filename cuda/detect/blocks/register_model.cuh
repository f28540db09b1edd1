/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The complex QR model of one problem held in one thread's registers, for the searches
 * compiled per nt (nway, psd): R (upper triangular, real positive diagonal) and
 * y^ = Q^H y of H with its columns rotated by a pass. With nt a template parameter every
 * array index below is a compile-time constant, so nothing lives in local or shared
 * memory; that is the point (docs/performance.md: the run-time-indexed versions were
 * bound by their loads).
 *
 * The real model of the searches is the interleaved decomposition of this complex one
 * (mrvd_model.cuh): the real rows 2k (Re) and 2k+1 (Im) of stream k share r_kk and are
 * coupled to nothing else of stream k, so b_k = y^_k - sum_{j>k} r_kj x_j, one complex
 * interference sum, gives both real levels' centres.
 */
#ifndef INCLUDED_GPUMIMO_CUDA_REGISTER_MODEL_CUH
#define INCLUDED_GPUMIMO_CUDA_REGISTER_MODEL_CUH

#include "common/gpu_math.cuh"
#include "detect/kernels/chunk_args.cuh"
#include "detect/blocks/mrvd_model.cuh"

#include <cstddef>
#include <type_traits>

namespace gr {
namespace gpumimo {
namespace cuda {

/*! Largest nt and nr the register kernels are compiled for. */
constexpr int kRegisterMaxNt = 4;
constexpr int kRegisterMaxNr = 4;

template <typename real, int NT>
struct register_model {
    cplx<real> r[NT][NT]; // upper triangle; r[k][k].im == 0
    cplx<real> yhat[NT];
    int stream[NT]; // the transmit stream of column k
};

/*! Modified Gram-Schmidt of the nr x NT matrix of channel c, column j holding stream
 *  (j + shift) % NT, with y of vector v carried along as an extra column (so y^ = Q^H y
 *  in the modified form). NRP >= nr rows are processed; rows nr..NRP-1 are zero, which
 *  adds exact zeros, so NRP = 4 serves every nr <= 4 from one compiled kernel.
 *  SORTED: at step k the remaining column of least norm is taken next (the sorted QR of
 *  Wuebben et al., as mtt's): the weak streams end up at the top left of R, decided
 *  last in a search, and the strong ones, decided first, prune the tree early. */
template <typename real, int NT, int NRP, bool SORTED = false>
__device__ __forceinline__ void qr_in_registers(
    const chunk_args& a, std::size_t c, std::size_t v, int shift, register_model<real, NT>& m)
{
    const int nr = a.nr;
#pragma unroll
    for (int j = 0; j < NT; j++)
        m.stream[j] = (j + shift) % NT;
    cplx<real> q[NRP][NT], y[NRP];
#pragma unroll
    for (int rr = 0; rr < NRP; rr++) {
        const bool row = rr < nr;
        y[rr] = row ? from_float2<real>(a.y[v * nr + rr]) : cplx<real>{ 0, 0 };
#pragma unroll
        for (int j = 0; j < NT; j++)
            q[rr][j] = row ? from_float2<real>(a.h[(c * nr + rr) * NT + m.stream[j]])
                           : cplx<real>{ 0, 0 };
    }
#pragma unroll
    for (int k = 0; k < NT; k++) {
        real nk = 0;
#pragma unroll
        for (int rr = 0; rr < NRP; rr++)
            nk += norm2(q[rr][k]);
        if (SORTED) {
            int least = k;
#pragma unroll
            for (int j = k + 1; j < NT; j++) {
                real nj = 0;
#pragma unroll
                for (int rr = 0; rr < NRP; rr++)
                    nj += norm2(q[rr][j]);
                if (nj < nk) {
                    nk = nj;
                    least = j;
                }
            }
            // Swap columns k and `least` (and their entries of R's rows above k):
            // predicated moves, so that every index stays a compile-time constant.
#pragma unroll
            for (int j = k + 1; j < NT; j++)
                if (j == least) {
#pragma unroll
                    for (int rr = 0; rr < NRP; rr++) {
                        const cplx<real> t = q[rr][k];
                        q[rr][k] = q[rr][j];
                        q[rr][j] = t;
                    }
#pragma unroll
                    for (int i = 0; i < k; i++) {
                        const cplx<real> t = m.r[i][k];
                        m.r[i][k] = m.r[i][j];
                        m.r[i][j] = t;
                    }
                    const int t = m.stream[k];
                    m.stream[k] = m.stream[j];
                    m.stream[j] = t;
                }
        }
        const real rkk = sqrt(nk);
        // A zero column leaves q_k zero; the channel check marks such an H bad.
        const real inv = rkk > 0 ? real(1) / rkk : real(0);
        m.r[k][k] = { rkk, 0 };
#pragma unroll
        for (int rr = 0; rr < NRP; rr++)
            q[rr][k] = inv * q[rr][k];
#pragma unroll
        for (int j = k + 1; j < NT; j++) {
            cplx<real> dot{ 0, 0 };
#pragma unroll
            for (int rr = 0; rr < NRP; rr++)
                dot = dot + conj_mul(q[rr][k], q[rr][j]);
            m.r[k][j] = dot;
#pragma unroll
            for (int rr = 0; rr < NRP; rr++)
                q[rr][j] = q[rr][j] - dot * q[rr][k];
        }
        cplx<real> yk{ 0, 0 };
#pragma unroll
        for (int rr = 0; rr < NRP; rr++)
            yk = yk + conj_mul(q[rr][k], y[rr]);
        m.yhat[k] = yk;
#pragma unroll
        for (int rr = 0; rr < NRP; rr++)
            y[rr] = y[rr] - yk * q[rr][k];
    }
}

/*! The same model from a QR computed once per channel matrix by mrvd::qr_kernel (for
 *  groups of vectors sharing H): R of (channel c, pass) and y^ = Q^H y (classical). */
template <typename real, int NT>
__device__ __forceinline__ void load_model_registers(const chunk_args& a,
                                                     const mrvd::workspace<real>& w,
                                                     int passes,
                                                     std::size_t c,
                                                     std::size_t v,
                                                     int pass,
                                                     register_model<real, NT>& m)
{
    const int nr = a.nr;
    const std::size_t job = c * passes + pass;
    const cplx<real>* rm = w.r + job * NT * NT;
    const cplx<real>* qm = w.q + job * nr * NT;
#pragma unroll
    for (int k = 0; k < NT; k++) {
#pragma unroll
        for (int j = k; j < NT; j++)
            m.r[k][j] = rm[k * NT + j];
        m.yhat[k] = { 0, 0 };
        m.stream[k] = (k + pass) % NT;
    }
    for (int rr = 0; rr < nr; rr++) {
        const cplx<real> yr = from_float2<real>(a.y[v * nr + rr]);
#pragma unroll
        for (int k = 0; k < NT; k++)
            m.yhat[k] = m.yhat[k] + conj_mul(qm[rr * NT + k], yr);
    }
}

/*! Whether the register kernels serve (nt, nr); with the QR fused into the search only
 *  when nr is small enough for registers too and every vector has its own H. */
inline bool register_kernel_serves(int nt) { return nt >= 1 && nt <= kRegisterMaxNt; }
inline bool register_qr_fused(int nt, int nr, std::size_t group)
{
    return register_kernel_serves(nt) && nr <= kRegisterMaxNr && group == 1;
}

/*! Calls run(nrp, fused) with the compile-time row count NRP and FUSED flag of the
 *  kernel instance that serves this chunk: the QR fused in registers (NRP = nr when
 *  nr == NT, else the padded kRegisterMaxNr), or loaded (FUSED = false; the caller runs
 *  mrvd::qr_kernel first when register_qr_fused is false). */
template <int NT, typename F>
void dispatch_register_instance(const chunk_args& a, F&& run)
{
    if (!register_qr_fused(a.nt, a.nr, a.group))
        run(std::integral_constant<int, NT>{}, std::false_type{});
    else if (a.nr == NT)
        run(std::integral_constant<int, NT>{}, std::true_type{});
    else
        run(std::integral_constant<int, kRegisterMaxNr>{}, std::true_type{});
}

/*! Calls f(std::integral_constant<int, NT>{}) for the run-time nt (1..4). */
template <typename F>
void dispatch_nt(int nt, F&& f)
{
    switch (nt) {
    case 1:
        return f(std::integral_constant<int, 1>{});
    case 2:
        return f(std::integral_constant<int, 2>{});
    case 3:
        return f(std::integral_constant<int, 3>{});
    default:
        return f(std::integral_constant<int, 4>{});
    }
}

} // namespace cuda
} // namespace gpumimo
} // namespace gr

#endif
