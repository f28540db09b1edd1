/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency. Compiled by both
 * the host compiler and nvcc, so that the CPU reference and the CUDA kernels draw the
 * same random numbers.
 */
#ifndef INCLUDED_GPUMIMO_CORE_PHILOX_H
#define INCLUDED_GPUMIMO_CORE_PHILOX_H

#include <gnuradio/gpumimo/core/host_device.h>

#include <cmath>
#include <cstdint>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
 * SC 2011): a counter-based generator, four 32-bit words from a 128-bit counter and a
 * 64-bit key, with no state.
 *
 * Why counter-based: the link simulator names every random number by what it is for
 * (frame, SNR point, purpose, index), so a frame is the same whichever thread, batch
 * size or backend makes it, and the CPU reference and the GPU draw identical bits.
 */
struct philox_words {
    std::uint32_t v[4];
};

GPUMIMO_HOST_DEVICE inline philox_words philox4x32_10(std::uint32_t c0,
                                                     std::uint32_t c1,
                                                     std::uint32_t c2,
                                                     std::uint32_t c3,
                                                     std::uint64_t key)
{
    std::uint32_t k0 = std::uint32_t(key), k1 = std::uint32_t(key >> 32);
    for (int round = 0; round < 10; round++) {
        const std::uint64_t p0 = std::uint64_t(0xD2511F53u) * c0;
        const std::uint64_t p1 = std::uint64_t(0xCD9E8D57u) * c2;
        const std::uint32_t hi0 = std::uint32_t(p0 >> 32), lo0 = std::uint32_t(p0);
        const std::uint32_t hi1 = std::uint32_t(p1 >> 32), lo1 = std::uint32_t(p1);
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    return { { c0, c1, c2, c3 } };
}

/*! A uniform float in (0, 1) from the word's top 23 bits: (k + 1/2) / 2^23, never 0
 *  and never 1 (Box-Muller takes its logarithm: 1 would give a radius of exactly 0).
 *  23 bits, not 24: k + 1/2 must be exact in float, and above 2^23 it is not (24 bits
 *  rounded the largest value up to 1, an exact zero channel gain about once in 2^24
 *  draws; CI met one). */
GPUMIMO_HOST_DEVICE inline float philox_uniform(std::uint32_t word)
{
    return (float(word >> 9) + 0.5f) * (1.0f / 8388608.0f);
}

/*! Two independent N(0, 1) values from two words (Box-Muller), in float. The host uses
 *  the C library's logf/sinf/cosf, the GPU CUDA's logf and sincospif: results agree to
 *  a few units in the last place, not bit for bit. */
GPUMIMO_HOST_DEVICE inline void
philox_gaussian_pair(std::uint32_t a, std::uint32_t b, float& g0, float& g1)
{
    const float radius = sqrtf(-2.0f * logf(philox_uniform(a)));
    const float turns = 2.0f * philox_uniform(b);
    float s, c;
#ifdef __CUDA_ARCH__
    sincospif(turns, &s, &c);
#else
    s = std::sin(turns * 3.14159265358979f);
    c = std::cos(turns * 3.14159265358979f);
#endif
    g0 = radius * c;
    g1 = radius * s;
}

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
