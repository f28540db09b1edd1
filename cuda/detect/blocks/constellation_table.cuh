/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_CUDA_CONSTELLATION_TABLE_CUH
#define INCLUDED_GPUMIMO_CUDA_CONSTELLATION_TABLE_CUH

#include "common/gpu_math.cuh"
#include "detect/kernels/chunk_args.cuh"

namespace gr {
namespace gpumimo {
namespace cuda {

/*! The constellation point q in the kernel's precision. */
template <typename real>
__device__ inline cplx<real> point_of(const chunk_args& a, int q);
template <>
__device__ inline cplx<double> point_of<double>(const chunk_args& a, int q)
{
    const double2 p = a.points_d[q];
    return { p.x, p.y };
}
template <>
__device__ inline cplx<float> point_of<float>(const chunk_args& a, int q)
{
    const float2 p = a.points_f[q];
    return { p.x, p.y };
}

/*! Amplitude of PAM level l: (2l - (npam-1)) * scale
 * (core::constellation::pam_amplitude). */
template <typename real>
__device__ inline real pam_amplitude(int level, int npam, real scale)
{
    return real(2 * level - (npam - 1)) * scale;
}

/*! Nearest PAM level (0..npam-1) to amplitude x: round and clamp, as the N-way paper's
 *  Algorithm 2, lines 11-12. */
template <typename real>
__device__ inline int nearest_level(real x, real scale, int npam)
{
    const real l = rint((x / scale + real(npam - 1)) * real(0.5));
    return int(fmin(fmax(l, real(0)), real(npam - 1)));
}

} // namespace cuda
} // namespace gpumimo
} // namespace gr

#endif
