/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_PMT_VECTOR_POOL_H
#define INCLUDED_GPUMIMO_PMT_VECTOR_POOL_H

#include <pmt/pmt.h>

#include <complex>
#include <cstddef>
#include <vector>

namespace gr {
namespace gpumimo {

/*!
 * \brief PMT vectors for a block's per-frame tags, reused once nothing else holds them.
 *
 * mimo_chanest tags each frame with its channel estimate (lte20 4x4: 150 KB of H). A new
 * c32vector a frame made the allocator grow and trim its heap in turn, page faults
 * included: on the H200 host the block spent 80-200 us a frame making its tags, more
 * than its GPU engine (docs/performance.md). A vector the pool made is handed out again
 * when the pool's is its only reference (the tag carrying it pruned from the buffer,
 * every reader done with it); a vector someone keeps (a tag debug sink, a Python
 * script) is never written. Up to kMostKept vectors of each type are kept; beyond that
 * a new one is made and not kept.
 */
class pmt_vector_pool
{
public:
    /*! A c32vector holding values[0, n). */
    pmt::pmt_t c32(const std::complex<float>* values, std::size_t n);
    /*! An f32vector holding values[0, n). */
    pmt::pmt_t f32(const float* values, std::size_t n);
    /*! Vectors kept (for the tests). */
    std::size_t kept() const { return d_c32.size() + d_f32.size(); }

    static constexpr std::size_t kMostKept = 256;

private:
    std::vector<pmt::pmt_t> d_c32, d_f32;
};

} // namespace gpumimo
} // namespace gr

#endif
