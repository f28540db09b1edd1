/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Complex arithmetic in either precision for the kernels (thrust/cuComplex would tie
 * the code to one type).
 */
#ifndef INCLUDED_GPUMIMO_CUDA_GPU_MATH_CUH
#define INCLUDED_GPUMIMO_CUDA_GPU_MATH_CUH

#include <gnuradio/gpumimo/core/limits.h>

#include <cuda_runtime.h>

namespace gr {
namespace gpumimo {
namespace cuda {

template <typename real>
struct cplx {
    real re, im;
};

template <typename real>
__host__ __device__ inline cplx<real> make_cplx(real re, real im)
{
    return { re, im };
}
template <typename real>
__host__ __device__ inline cplx<real> from_float2(float2 v)
{
    return { real(v.x), real(v.y) };
}
template <typename real>
__host__ __device__ inline cplx<real> operator+(cplx<real> a, cplx<real> b)
{
    return { a.re + b.re, a.im + b.im };
}
template <typename real>
__host__ __device__ inline cplx<real> operator-(cplx<real> a, cplx<real> b)
{
    return { a.re - b.re, a.im - b.im };
}
template <typename real>
__host__ __device__ inline cplx<real> operator*(cplx<real> a, cplx<real> b)
{
    return { a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re };
}
template <typename real>
__host__ __device__ inline cplx<real> operator*(real s, cplx<real> a)
{
    return { s * a.re, s * a.im };
}
/*! conj(a) * b */
template <typename real>
__host__ __device__ inline cplx<real> conj_mul(cplx<real> a, cplx<real> b)
{
    return { a.re * b.re + a.im * b.im, a.re * b.im - a.im * b.re };
}
template <typename real>
__host__ __device__ inline real norm2(cplx<real> a)
{
    return a.re * a.re + a.im * a.im;
}

__device__ inline bool finite2(float2 v) { return isfinite(v.x) && isfinite(v.y); }

/*! core::is_usable on the device: both parts finite and within +-max_sample_magnitude
 *  (core/limits.h), the test every input check makes on a sample (and the OFDM FFT's:
 *  no transform of such a sample can overflow). */
__device__ inline bool usable2(float2 v)
{
    return core::usable_part(v.x) && core::usable_part(v.y);
}

/*! The smallest positive normal number of the type: a floor for variances that a
 *  degenerate N0 would make 0. */
template <typename real>
__host__ __device__ inline real smallest_normal();
template <>
__host__ __device__ inline float smallest_normal<float>()
{
    return 1.17549435e-38f;
}
template <>
__host__ __device__ inline double smallest_normal<double>()
{
    return 2.2250738585072014e-308;
}

} // namespace cuda
} // namespace gpumimo
} // namespace gr

#endif
