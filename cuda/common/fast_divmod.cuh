/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Division by a divisor fixed for a whole launch, as a multiply-high and a shift: a
 * 32-bit integer division costs some twenty instructions on the GPU, and the FFT's load
 * and store callbacks split every element's index into its transform and its place in
 * it. Compiles with g++ too, so that the host test (test_gpu_ofdm_fft) holds it to plain
 * division.
 */
#ifndef INCLUDED_GPUMIMO_FAST_DIVMOD_CUH
#define INCLUDED_GPUMIMO_FAST_DIVMOD_CUH

#include <cstdint>

#ifdef __CUDACC__
#define GPUMIMO_HD __host__ __device__ __forceinline__
#else
#define GPUMIMO_HD inline
#endif

namespace gr {
namespace gpumimo {
namespace cuda {

/*! q = x / d and r = x % d for 0 <= x < 2^31 and 1 <= d < 2^31 (Granlund and
 *  Montgomery's round-up method, as CUTLASS's FastDivmod): with l = ceil(log2 d),
 *  m = ceil(2^(31 + l) / d) fits 32 bits and q = (x * m) >> (31 + l). */
struct fast_divmod {
    std::uint32_t divisor = 1, multiplier = 0, shift = 0;

    fast_divmod() = default;
    explicit fast_divmod(std::uint32_t d) : divisor(d)
    {
        if (d <= 1)
            return; // multiplier 0 marks "divide by one"
        std::uint32_t l = 0;
        while ((std::uint64_t(1) << l) < d)
            l++;
        multiplier = std::uint32_t(((std::uint64_t(1) << (31 + l)) + d - 1) / d);
        shift = l - 1; // after the multiply-high's 32
    }

    GPUMIMO_HD std::uint32_t div(std::uint32_t x) const
    {
        if (multiplier == 0)
            return x;
#ifdef __CUDA_ARCH__
        return __umulhi(x, multiplier) >> shift;
#else
        return std::uint32_t((std::uint64_t(x) * multiplier) >> 32) >> shift;
#endif
    }
    /*! x / d, and x % d into rem. */
    GPUMIMO_HD std::uint32_t divmod(std::uint32_t x, std::uint32_t& rem) const
    {
        const std::uint32_t q = div(x);
        rem = x - q * divisor;
        return q;
    }
};

} // namespace cuda
} // namespace gpumimo
} // namespace gr

#endif
